package io.crigate.nri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code nri} section of crigate serve's configuration. */
class NriHostSettingsTest {

  private static JsonNode json(String text) throws Exception {
    return new ObjectMapper().readTree(text);
  }

  @Test
  void anEmptySectionMeansNrisDefaults() throws Exception {
    NriRuntime.Settings s = NriRuntime.Settings.fromConfig(json("{}"));
    assertThat(s).isEqualTo(new NriRuntime.Settings(Path.of("/var/run/crigate/nri.sock"), Duration.ofSeconds(2),
        Duration.ofSeconds(5), true, ""));
  }

  @Test
  void everyKeyIsRead() throws Exception {
    NriRuntime.Settings s = NriRuntime.Settings.fromConfig(json("""
        {"socket": "/tmp/x/nri.sock", "requestTimeout": "500ms", "registrationTimeout": "3s",
         "onPluginError": "ignore", "config": "mode: strict"}"""));
    assertThat(s).isEqualTo(new NriRuntime.Settings(Path.of("/tmp/x/nri.sock"), Duration.ofMillis(500),
        Duration.ofSeconds(3), false, "mode: strict"));
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(() -> NriRuntime.Settings.fromConfig(json("{\"sokcet\": \"/x\"}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unknown key 'nri.sokcet'");
    assertThatThrownBy(() -> NriRuntime.Settings.fromConfig(json("{\"onPluginError\": \"retry\"}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("nri.onPluginError 'retry'");
    assertThatThrownBy(() -> NriRuntime.Settings.fromConfig(json("{\"requestTimeout\": \"soon\"}")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("nri.requestTimeout 'soon'");
  }
}
