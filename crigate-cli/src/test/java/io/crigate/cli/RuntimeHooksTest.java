package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.hooks.HookMode;
import io.crigate.hooks.HookSettings;
import io.crigate.hooks.KoordinatorHooks;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeHooksTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static List<String> hookNames(KoordinatorHooks hooks) {
    return hooks.chain().registrations().stream().map(r -> r.hook().name()).toList();
  }

  /** As an operator should: a rename, so the watcher never reads a half-written file. */
  private void replace(Path file, String yaml) throws Exception {
    Path next = Files.writeString(dir.resolve("hooks.yaml.next"), yaml);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void serveRunsTheHooksOnlyWhenTheSectionExistsInProxyMode() throws Exception {
    assertThat(RuntimeHooks.forMode(MissingNode.getInstance(), HookMode.PROXY)).isEmpty();
    assertThat(RuntimeHooks.forMode(json("{\"mode\":\"standalone\"}"), HookMode.PROXY)).isEmpty();
    assertThat(RuntimeHooks.forMode(json("{\"mode\":\"nri\"}"), HookMode.PROXY)).isEmpty();
    assertThat(RuntimeHooks.forMode(json("{}"), HookMode.NRI)).isEmpty();
    assertThat(RuntimeHooks.forMode(json("{\"mode\":\"nri\"}"), HookMode.NRI)).isPresent();

    KoordinatorHooks hooks = RuntimeHooks.forMode(json("{}"), HookMode.PROXY).orElseThrow();

    assertThat(hookNames(hooks)).containsExactly("QoSClass", "BatchResource", "CPUSetAllocator", "GPUEnvInject");
  }

  @Test
  void aBadSectionStopsServeWithTheFieldNamed() {
    assertThatThrownBy(() -> RuntimeHooks.forMode(json("{\"BatchResource\":{\"failurePolicy\":\"sometimes\"}}"), HookMode.PROXY))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("failurePolicy 'sometimes'");
  }

  @Test
  void theConfigFileOverridesTheSectionAtStart() throws Exception {
    Path file = Files.writeString(dir.resolve("hooks.yaml"), "mode: standalone\nresync: 2s\n");

    HookSettings settings = RuntimeHooks.settings(json("{\"configFile\":\"%s\",\"mode\":\"proxy\"}".formatted(file)));

    assertThat(settings.mode()).isEqualTo(HookMode.STANDALONE);
    assertThat(settings.resync()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aChangedConfigFileSwapsTheHooksLiveAndABadOneIsIgnored() throws Exception {
    Path file = dir.resolve("hooks.yaml");
    List<HookSettings> changes = new CopyOnWriteArrayList<>();
    try (KoordinatorHooks hooks = RuntimeHooks.engine(json("{\"configFile\":\"%s\"}".formatted(file)), Optional.empty(), changes::add)) {
      assertThat(hookNames(hooks)).hasSize(4);

      replace(file, "QoSClass: {enabled: false}\nGPUEnvInject: {enabled: false}\n");
      await().atMost(Duration.ofSeconds(20)).until(() -> hookNames(hooks).size() == 2);
      assertThat(hookNames(hooks)).containsExactly("BatchResource", "CPUSetAllocator");
      assertThat(changes).isNotEmpty();

      replace(file, "QoSClass: {failurePolicy: perhaps}\n");
      // the bad file is rejected: the previous hooks stay
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
          .until(() -> hookNames(hooks).equals(List.of("BatchResource", "CPUSetAllocator")));

      replace(file, "GPUEnvInject: {enabled: false}\n");
      await().atMost(Duration.ofSeconds(20)).until(() -> hookNames(hooks).size() == 3);
    }
  }
}
