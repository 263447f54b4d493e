package io.crigate.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings translated from another system's flags lie between crigate's file and crigate's flags. */
class TranslatedSettingsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir
  Path dir;

  @Test
  void translatedSettingsMergeIntoTheFileKeyByKeyAndFlagsWin() throws Exception {
    Path file = dir.resolve("crigate.yaml");
    Files.writeString(file, """
        socket: /run/file.sock
        backends:
          - {name: default, type: cri, handlers: [default], endpoint: /run/file-containerd.sock}
          - {name: other, type: cri, handlers: [other], endpoint: /run/other.sock}
        dump: {rules: 'full:.*', format: json}
        """);
    ObjectNode translated = (ObjectNode) YAML.readTree("""
        socket: /run/translated.sock
        stateDir: /var/lib/translated
        backends:
          - {name: default, type: cri, handlers: [default], endpoint: /run/translated-containerd.sock}
        dump: {rules: 'reset,short:.*'}
        """);
    ConfigFlags flags = new ConfigFlags(file.toString(), "/run/flag.sock", null, null, null, null, null, null, null);

    GatewayConfig config = ConfigLoader.load(flags, translated);

    assertThat(config.socket().toString()).isEqualTo("/run/flag.sock");
    assertThat(config.stateDir().toString()).isEqualTo("/var/lib/translated");
    assertThat(config.backends()).extracting(BackendConfig::name).containsExactly("default", "other");
    assertThat(config.backends().get(0).settings().get("endpoint").asText()).isEqualTo("/run/translated-containerd.sock");
    assertThat(config.dump().format().name()).isEqualTo("JSON");
    assertThat(config.dump().rules().rules()).hasSize(1);
  }
}
