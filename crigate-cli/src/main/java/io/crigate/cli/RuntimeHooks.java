package io.crigate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.hooks.HookMode;
import io.crigate.hooks.HookSettings;
import io.crigate.hooks.HostCgroups;
import io.crigate.hooks.KoordinatorHooks;
import io.crigate.hooks.PodCgroupWriter;
import io.crigate.spi.config.LiveConfigFile;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code hooks} section, one for every mode: its settings (with the live {@code configFile} on
 * top) and the hook engine built from them, which follows every later change of that file.
 */
final class RuntimeHooks {

  private static final Logger log = LoggerFactory.getLogger(RuntimeHooks.class);
  static final String SECTION = "hooks";
  /** Where serve and nri-plugin find the pod cgroups: they run on the node, as the kubelet does. */
  private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
  private static final Path PROC_ROOT = Path.of("/proc");

  private RuntimeHooks() {}

  /** The settings as they are now; the section alone when it names no file. */
  static HookSettings settings(JsonNode section) {
    String file = configFile(section);
    return HookSettings.parse(file.isEmpty() ? section
        : LiveConfigFile.overlay(section, LiveConfigFile.read(SECTION, Path.of(file))));
  }

  /** The file named by {@code section.configFile}; empty when the section has none. */
  private static String configFile(JsonNode section) {
    return section.path("configFile").asText("");
  }

  /**
   * The hook engine for a door ({@code serve}'s request path: proxy; {@code nri-plugin}: nri), only
   * when the section exists and names that mode.
   */
  static Optional<KoordinatorHooks> forMode(JsonNode section, HookMode door) {
    if (section.isMissingNode() || settings(section).mode() != door) {
      return Optional.empty();
    }
    return Optional.of(engine(section, Optional.of(new PodCgroupWriter(HostCgroups.at(CGROUP_ROOT, PROC_ROOT))),
        changed -> {}));
  }

  /**
   * The hook engine, following the live file when the section names one.
   *
   * @param podCgroups where proxy and NRI mode write pod-level values; empty in standalone mode, whose
   *     reconciler writes them
   * @param changed told after each live change was swapped in (standalone mode re-applies then)
   */
  static KoordinatorHooks engine(JsonNode section, Optional<PodCgroupWriter> podCgroups,
      Consumer<HookSettings> changed) {
    HookSettings initial = settings(section);
    KoordinatorHooks hooks = new KoordinatorHooks(initial.chain(), podCgroups);
    String file = configFile(section);
    if (!file.isEmpty()) {
      hooks.closeWith(LiveConfigFile.watch(SECTION, Path.of(file), content -> {
        HookSettings next = HookSettings.parse(LiveConfigFile.overlay(section, content));
        if (next.mode() != initial.mode()) {
          log.warn("hooks.mode changed from {} to {}: a mode takes effect at the next start",
              initial.mode(), next.mode());
        }
        hooks.reconfigure(next.chain());
        changed.accept(next);
      }));
    }
    return hooks;
  }
}
