package io.crigate.core;

import io.crigate.spi.adjust.AdjustmentPlugin;
import java.util.List;

/**
 * Builds the adjustment plugins (policies, hooks, hosted NRI plugins) once the gateway can give them
 * state and a way to update containers. The composition root supplies it; core knows no plugin.
 */
@FunctionalInterface
public interface AdjustmentPlugins {

  /** No plugins: requests pass unchanged, as before the engine existed. */
  AdjustmentPlugins NONE = environment -> List.of();

  /** @return the plugins in the order the chain calls them */
  List<AdjustmentPlugin> create(PluginEnvironment environment);
}
