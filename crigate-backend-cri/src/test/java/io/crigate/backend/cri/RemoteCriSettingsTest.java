package io.crigate.backend.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RemoteCriSettingsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  record Valid(String name, String json, Path socket, Duration connectTimeout) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Valid> valid() {
    return Stream.of(
        new Valid("unix URL, default timeout", "{\"endpoint\":\"unix:///run/c.sock\"}", Path.of("/run/c.sock"),
            RemoteCriSettings.DEFAULT_CONNECT_TIMEOUT),
        new Valid("bare path", "{\"endpoint\":\"/run/c.sock\"}", Path.of("/run/c.sock"),
            RemoteCriSettings.DEFAULT_CONNECT_TIMEOUT),
        new Valid("milliseconds", "{\"endpoint\":\"/s\",\"connectTimeout\":\"250ms\"}", Path.of("/s"), Duration.ofMillis(250)),
        new Valid("seconds", "{\"endpoint\":\"/s\",\"connectTimeout\":\"3s\"}", Path.of("/s"), Duration.ofSeconds(3)),
        new Valid("minutes", "{\"endpoint\":\"/s\",\"connectTimeout\":\"1m\"}", Path.of("/s"), Duration.ofMinutes(1)),
        new Valid("ISO-8601", "{\"endpoint\":\"/s\",\"connectTimeout\":\"PT1.5S\"}", Path.of("/s"), Duration.ofMillis(1500)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void parsesValidSettings(Valid c) throws Exception {
    RemoteCriSettings settings = RemoteCriSettings.parse("a", JSON.readTree(c.json()));

    assertThat(settings.socket()).isEqualTo(c.socket());
    assertThat(settings.connectTimeout()).isEqualTo(c.connectTimeout());
    assertThat(settings.endpoint()).isEqualTo("unix://" + c.socket());
  }

  record Invalid(String name, String json, String messagePart) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Invalid> invalid() {
    return Stream.of(
        new Invalid("not an object", "\"unix:///s\"", "settings must be an object"),
        new Invalid("no endpoint", "{}", "'endpoint' is required"),
        new Invalid("blank endpoint", "{\"endpoint\":\" \"}", "'endpoint' is required"),
        new Invalid("endpoint not text", "{\"endpoint\":5}", "endpoint '5' is not a unix socket"),
        new Invalid("TCP endpoint", "{\"endpoint\":\"tcp://127.0.0.1:1\"}", "not a unix socket"),
        new Invalid("relative path", "{\"endpoint\":\"run/c.sock\"}", "not a unix socket"),
        new Invalid("misspelt key", "{\"endpiont\":\"/s\"}",
            "unknown backends.gpu key 'endpiont' (known: endpoint, connectTimeout)"),
        new Invalid("zero timeout", "{\"endpoint\":\"/s\",\"connectTimeout\":\"0s\"}",
            "'backends.gpu.connectTimeout' must be a positive duration"),
        new Invalid("negative timeout", "{\"endpoint\":\"/s\",\"connectTimeout\":\"PT-1S\"}",
            "'backends.gpu.connectTimeout' must be a positive duration"),
        new Invalid("unitless timeout", "{\"endpoint\":\"/s\",\"connectTimeout\":\"5\"}",
            "'backends.gpu.connectTimeout' must be a positive duration"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void rejectsInvalidSettingsNamingBackendAndProblem(Invalid c) throws Exception {
    JsonNode settings = JSON.readTree(c.json());

    assertThatThrownBy(() -> RemoteCriSettings.parse("gpu", settings))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(c.messagePart())
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("backend gpu (type cri)", "backends.gpu"));
  }
}
