package io.crigate.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class StreamingSettingsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void defaultsAreLoopbackAnEphemeralPortAndAMinute() {
    StreamingSettings settings = StreamingSettings.parse(MissingNode.getInstance());

    assertThat(settings.address().isLoopbackAddress()).isTrue();
    assertThat(settings.port()).isZero();
    assertThat(settings.tokenTtl()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void readsEveryKey() throws Exception {
    StreamingSettings settings = StreamingSettings.parse(JSON.readTree(
        "{\"address\":\"127.0.0.2\",\"port\":10010,\"tokenTtlSeconds\":30,\"streamCreationTimeoutSeconds\":5}"));

    assertThat(settings.address().getHostAddress()).isEqualTo("127.0.0.2");
    assertThat(settings.port()).isEqualTo(10010);
    assertThat(settings.tokenTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.streamCreationTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void durationsAreGoDurations() throws Exception {
    StreamingSettings settings = StreamingSettings.parse(JSON.readTree("{\"tokenTtl\":\"1m30s\",\"streamCreationTimeout\":\"500ms\"}"));

    assertThat(settings.tokenTtl()).isEqualTo(Duration.ofSeconds(90));
    assertThat(settings.streamCreationTimeout()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void idleConnectionsCloseAfterFourHoursUnlessSetAndContainerdsNameIsRead() throws Exception {
    assertThat(StreamingSettings.parse(JSON.readTree("{}")).idleTimeout()).isEqualTo(Duration.ofHours(4));
    assertThat(StreamingSettings.parse(JSON.readTree("{\"idleTimeout\":\"30m\"}")).idleTimeout())
        .isEqualTo(Duration.ofMinutes(30));
    assertThat(StreamingSettings.parse(JSON.readTree("{\"streamIdleTimeout\":\"1h0m0s\"}")).idleTimeout())
        .isEqualTo(Duration.ofHours(1));
  }

  record Case(String name, String json, String message) {}

  static Stream<Case> invalid() {
    return Stream.of(
        new Case("unknown key", "{\"adress\":\"127.0.0.1\"}",
            "unknown streaming key 'adress' (known: address, port, tokenTtl, streamCreationTimeout, idleTimeout, tlsCert, tlsKey)"),
        new Case("wildcard address", "{\"address\":\"0.0.0.0\"}", "is a wildcard"),
        new Case("port too large", "{\"port\":70000}", "streaming.port must be a whole number from 0 to 65535"),
        new Case("ttl not a duration", "{\"tokenTtlSeconds\":\"soon\"}", "'streaming.tokenTtl' must be a positive duration"),
        new Case("ttl over an hour", "{\"tokenTtl\":\"2h\"}", "streaming.tokenTtl PT2H is longer than the PT1H allowed"),
        new Case("creation timeout of zero seconds", "{\"streamCreationTimeoutSeconds\":0}",
            "'streaming.streamCreationTimeout' must be a positive duration"),
        new Case("idle timeout of zero", "{\"idleTimeout\":\"0s\"}", "'streaming.idleTimeout' must be a positive duration"),
        new Case("a certificate without its key", "{\"tlsCert\":\"/etc/passwd\"}", "streaming.tlsCert and streaming.tlsKey go together"),
        new Case("an unreadable key", "{\"tlsCert\":\"/etc/passwd\",\"tlsKey\":\"/nonexistent/tls.key\"}",
            "streaming.tlsKey /nonexistent/tls.key is not a readable file"),
        new Case("not a mapping", "[1]", "'streaming' must be a mapping"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void badSettingsAreNamed(Case c) throws Exception {
    assertThatThrownBy(() -> StreamingSettings.parse(JSON.readTree(c.json())))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(c.message());
  }
}
