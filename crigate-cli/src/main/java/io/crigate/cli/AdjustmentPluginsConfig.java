package io.crigate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.config.GatewayConfig;
import io.crigate.hooks.HookMode;
import io.crigate.nri.NriHostedPlugins;
import io.crigate.nri.NriRuntime;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.PolicyPlugin;
import io.crigate.policy.kube.ClusterPolicySettings;
import io.crigate.policy.kube.PolicyConfigMaps;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.PluginInitContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which adjustment plugins run, from the configuration: the resource policy (with its ConfigMaps
 * when {@code policy.kubernetes} is set), the runtime hooks when {@code hooks.mode} names the
 * door, then the external NRI plugins crigate hosts.
 */
final class AdjustmentPluginsConfig {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> ENGINE_SECTIONS = new TreeSet<>(Set.of("policy", RuntimeHooks.SECTION));
  /** How long serve's start waits for a first read of the policy ConfigMaps when none is remembered. */
  private static final Duration SERVE_FIRST_SYNC_WAIT = Duration.ofSeconds(10);
  /**
   * The same for nri-plugin, whose Configure it delays: a launched plugin has the runtime's
   * registration timeout (5 s by default) from its start to register and be configured, and the
   * JVM's start takes 1.2-2.5 s of it.
   */
  private static final Duration NRI_FIRST_SYNC_WAIT = Duration.ofSeconds(2);

  private AdjustmentPluginsConfig() {}

  /**
   * The plugins of {@code crigate serve}'s request path: the policy, the hooks in proxy mode, and with an {@code nri}
   * section one plugin that drives every external NRI plugin connected to crigate's NRI socket.
   *
   * @throws io.crigate.spi.CrigateException.InvalidArgument naming a bad nri key, before anything starts
   */
  static AdjustmentPlugins of(GatewayConfig config) {
    NriRuntime.Settings nri = config.nri().isMissingNode() ? null : NriRuntime.Settings.fromConfig(config.nri());
    return environment -> {
      List<AdjustmentPlugin> plugins = new ArrayList<>(policy(config.policy(), environment, SERVE_FIRST_SYNC_WAIT));
      RuntimeHooks.forMode(config.hooks(), HookMode.PROXY).ifPresent(plugins::add);
      if (nri != null) {
        try {
          plugins.add(NriHostedPlugins.start(nri, environment.updater(), environment.stopper()));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot listen on NRI socket " + nri.socket(), e);
        }
      }
      return plugins;
    };
  }

  /**
   * crigate's own engine plugins from the same configuration file, without the hosted NRI plugins:
   * what {@code crigate nri-plugin} serves to a runtime, with the hooks when {@code hooks.mode} is nri.
   */
  static AdjustmentPlugins engine(JsonNode root) {
    return environment -> {
      List<AdjustmentPlugin> plugins = new ArrayList<>(policy(root.path("policy"), environment, NRI_FIRST_SYNC_WAIT));
      RuntimeHooks.forMode(root.path(RuntimeHooks.SECTION), HookMode.NRI).ifPresent(plugins::add);
      return plugins;
    };
  }

  /**
   * The engine plugins of a configuration a runtime passes {@code crigate nri-plugin} in Configure
   * (a pre-installed plugin's drop-in): the same {@code policy} and {@code hooks} sections as the file.
   *
   * @throws io.crigate.spi.CrigateException.InvalidArgument for text that is not a YAML map or names
   *     another section
   */
  static AdjustmentPlugins engine(String text) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("the runtime's configuration is not YAML: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new CrigateException.InvalidArgument("the runtime's configuration must be a YAML map of sections (policy, hooks)");
    }
    root.fieldNames().forEachRemaining(section -> {
      if (!ENGINE_SECTIONS.contains(section)) {
        throw new CrigateException.InvalidArgument("unknown section '%s' in the runtime's configuration (nri-plugin reads: %s)"
            .formatted(section, ENGINE_SECTIONS));
      }
    });
    return engine(root);
  }

  private static List<AdjustmentPlugin> policy(JsonNode section, PluginEnvironment environment, Duration firstSyncWait) {
    if (section.isMissingNode()) {
      PolicyConfigMaps.notFollowed(environment.stores().apply(ActivePolicy.NAME));
      return List.of();
    }
    PluginInitContext context = environment.context(ActivePolicy.NAME, section);
    ActivePolicy policy = PolicyPlugin.create(section, context);
    Optional<ClusterPolicySettings> cluster = ClusterPolicySettings.read(section, System.getenv("NODE_NAME"));
    if (cluster.isEmpty()) {
      PolicyConfigMaps.notFollowed(context.store());
      return List.of(policy);
    }
    // The informers retry a failed list with their own backoff. fabric8's retries inside each
    // request would only hold the first failure back (~20 s against a refused port), and with
    // it the start, which waits for the ConfigMaps until they are read or fail.
    KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(Config.autoConfigure(null)).withRequestRetryBackoffLimit(0).build()).build();
    policy.closeWith(PolicyConfigMaps.start(client, cluster.get(), policy, context.store(),
        cluster.get().startWait().orElse(firstSyncWait)));
    policy.closeWith(client);
    return List.of(policy);
  }
}
