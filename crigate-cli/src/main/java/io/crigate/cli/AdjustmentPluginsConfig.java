package io.crigate.cli;

import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.config.GatewayConfig;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.PolicyPlugin;
import io.crigate.policy.kube.ClusterPolicySettings;
import io.crigate.policy.kube.PolicyConfigMaps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;

/**
 * Which adjustment plugins run in the request path, from the configuration: today the resource
 * policy, with its ConfigMaps when {@code policy.kubernetes} is set.
 */
final class AdjustmentPluginsConfig {

  private AdjustmentPluginsConfig() {}

  static AdjustmentPlugins of(GatewayConfig config) {
    if (config.policy().isMissingNode()) {
      return AdjustmentPlugins.NONE;
    }
    return environment -> {
      ActivePolicy policy = PolicyPlugin.create(config.policy(), environment.context(ActivePolicy.NAME, config.policy()));
      ClusterPolicySettings.read(config.policy(), System.getenv("NODE_NAME")).ifPresent(cluster -> {
        KubernetesClient client = new KubernetesClientBuilder().build();
        policy.closeWith(PolicyConfigMaps.start(client, cluster, policy));
        policy.closeWith(client);
      });
      return List.of(policy);
    };
  }
}
