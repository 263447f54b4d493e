package io.crigate.policy;

import io.crigate.spi.config.LiveConfigFile;
import java.nio.file.Path;

/**
 * The live policy file ({@code policy.configFile}) as the {@link ConfigLayer#FILE} layer: every
 * change to it reconfigures the policy, and its removal drops the layer. Reading, watching and
 * refusing a bad file are {@link LiveConfigFile}'s, shared with the runtime hooks.
 */
final class PolicyFile {

  private static final String SECTION = "policy";

  private PolicyFile() {}

  /** Starts applying every change of {@code file} to {@code policy}. */
  static LiveConfigFile watch(Path file, ActivePolicy policy) {
    return LiveConfigFile.watch(SECTION, file, content -> content.ifPresentOrElse(
        overlay -> policy.reconfigure(ConfigLayer.FILE, overlay), () -> policy.clear(ConfigLayer.FILE)));
  }

  /** {@code layers} with the file's content as the {@link ConfigLayer#FILE} layer, when the file exists. */
  static PolicyLayers layered(Path file, PolicyLayers layers) {
    return LiveConfigFile.read(SECTION, file).map(overlay -> layers.with(ConfigLayer.FILE, overlay))
        .orElseGet(() -> layers.without(ConfigLayer.FILE));
  }
}
