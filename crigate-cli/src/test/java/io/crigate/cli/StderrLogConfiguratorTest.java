package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** crigate's logging as logback sets it up on start, found through its service file, without any XML. */
class StderrLogConfiguratorTest {

  @Test
  void logbackStartsWithTheStderrAppenderAndNoXmlConfiguration() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);

    assertThat(root.getAppender(StderrLogConfigurator.APPENDER)).isInstanceOfSatisfying(ConsoleAppender.class,
        console -> assertThat(console.getTarget()).isEqualTo("System.err"));
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(context.getLogger("io.netty.bootstrap").getLevel()).isEqualTo(Level.ERROR);
    assertThat(context.getLogger(StderrLogConfigurator.FABRIC8_VERSION_WARNINGS).getLevel()).isEqualTo(Level.ERROR);
    assertThat(context.getLogger(StderrLogConfigurator.FABRIC8_INFORMER_RETRIES).getLevel()).isEqualTo(Level.ERROR);
    assertThat(StderrLogConfigurator.class.getClassLoader().getResource("logback.xml")).isNull();
  }

  @Test
  void linesCarryTimeLevelThreadLoggerAndMessage() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    @SuppressWarnings("unchecked")
    var console = (ConsoleAppender<ILoggingEvent>) context.getLogger(Logger.ROOT_LOGGER_NAME)
        .getAppender(StderrLogConfigurator.APPENDER);
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    console.setOutputStream(written);
    try {
      LoggerFactory.getLogger("io.crigate.core.Gateway").info("serving {}", "now");
    } finally {
      console.stop();
      console.start();
    }
    assertThat(written.toString(StandardCharsets.UTF_8).strip())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  \\[[^]]+] io\\.crigate\\.core\\.Gateway - serving now");
  }
}
