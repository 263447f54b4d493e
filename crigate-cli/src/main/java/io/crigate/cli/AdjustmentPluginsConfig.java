package io.crigate.cli;

import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.config.GatewayConfig;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.PolicyPlugin;
import java.util.List;

/** Which adjustment plugins run in the request path, from the configuration: today the resource policy. */
final class AdjustmentPluginsConfig {

  private AdjustmentPluginsConfig() {}

  static AdjustmentPlugins of(GatewayConfig config) {
    if (config.policy().isMissingNode()) {
      return AdjustmentPlugins.NONE;
    }
    return environment -> List.of(PolicyPlugin.create(config.policy(),
        environment.context(ActivePolicy.NAME, config.policy())));
  }
}
