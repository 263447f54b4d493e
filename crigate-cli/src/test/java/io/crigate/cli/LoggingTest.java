package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoggingTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();

  @AfterEach
  void reset() {
    context.getLogger("io.crigate.backend.slurm").setLevel(null);
    context.getLogger("io.grpc.netty").setLevel(null);
    context.getLogger(StderrLogConfigurator.FABRIC8_INFORMER_RETRIES).setLevel(null);
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
  }

  @Test
  void componentsGetTheirLevelAndAReloadWithoutThemInheritsAgain() throws Exception {
    Logging first = Logging.parse("info", JSON.readTree("{\"levels\":{\"slurm\":\"debug\",\"io.grpc.netty\":\"warn\"}}"));
    first.apply(null);

    assertThat(context.getLogger("io.crigate.backend.slurm.JobPoller").isDebugEnabled()).isTrue();
    assertThat(context.getLogger("io.crigate.core.Gateway").isDebugEnabled()).isFalse();
    assertThat(context.getLogger("io.grpc.netty").getLevel()).isEqualTo(Level.WARN);

    Logging second = Logging.parse("info", JSON.readTree("{\"levels\":{\"io.grpc.netty\":\"error\"}}"));
    second.apply(first);

    assertThat(context.getLogger("io.crigate.backend.slurm").getLevel()).as("back to inheriting").isNull();
    assertThat(context.getLogger("io.crigate.backend.slurm.JobPoller").isDebugEnabled()).isFalse();
    assertThat(context.getLogger("io.grpc.netty").getLevel()).isEqualTo(Level.ERROR);
  }

  @Test
  void aQuietedLibraryLoggerNamedThenLeftOutIsQuietAgain() throws Exception {
    String reflector = StderrLogConfigurator.FABRIC8_INFORMER_RETRIES;
    Logging named = Logging.parse("info", JSON.readTree("{\"levels\":{\"" + reflector + "\":\"warn\"}}"));
    named.apply(null);
    assertThat(context.getLogger(reflector).getLevel()).isEqualTo(Level.WARN);

    Logging.parse("info", JSON.readTree("{}")).apply(named);

    assertThat(context.getLogger(reflector).getLevel()).as("its stack traces quiet again").isEqualTo(Level.ERROR);
  }

  @Test
  void unknownComponentsLevelsAndKeysAreNamed() throws Exception {
    assertThatThrownBy(() -> Logging.parse("info", JSON.readTree("{\"levels\":{\"slrum\":\"debug\"}}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unknown component 'slrum'")
        .hasMessageContaining("slurm");
    assertThatThrownBy(() -> Logging.parse("info", JSON.readTree("{\"levels\":{\"slurm\":\"loud\"}}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("logging.levels.slurm: unknown level 'loud'");
    assertThatThrownBy(() -> Logging.parse("info", JSON.readTree("{\"format\":\"xml\"}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("text or json");
    assertThatThrownBy(() -> Logging.parse("info", JSON.readTree("{\"level\":\"debug\"}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unknown logging key 'level'");
  }

  @Test
  void jsonFormatWritesOneJsonObjectPerLine() throws Exception {
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    var console = (ch.qos.logback.core.OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent>) root.getAppender("STDERR");
    var text = console.getEncoder();
    java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
    try {
      Logging.parse("info", JSON.readTree("{\"format\":\"json\"}")).apply(null);
      console.setOutputStream(written);
      LoggerFactory.getLogger("io.crigate.core.Gateway").info("serving {}", "now");

      JsonNode line = JSON.readTree(written.toString(java.nio.charset.StandardCharsets.UTF_8).lines().reduce((a, b) -> b).orElseThrow());
      assertThat(line.path("level").asText()).isEqualTo("INFO");
      assertThat(line.path("loggerName").asText()).isEqualTo("io.crigate.core.Gateway");
      assertThat(line.path("formattedMessage").asText()).isEqualTo("serving now");
    } finally {
      console.stop();
      console.setEncoder(text);
      console.start();
    }
  }
}
