package io.crigate.policy;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * What the policy plugin did, for a fleet's dashboards: the policy that runs, the ConfigMap its
 * cluster layer came from and whether it was read from the API server or resumed from the state
 * database, live switches, and configurations refused. One set per registry, since a registry takes
 * each name once and {@code crigate nri-plugin} builds a new policy at every Configure; the set
 * reports the policy {@linkplain #attach attached} last.
 */
public final class PolicyMetrics {

  /** Weak, so a registry that is dropped (tests) takes its set along. */
  private static final Map<PrometheusRegistry, PolicyMetrics> BY_REGISTRY = new WeakHashMap<>();

  private final Counter switches;
  private final Counter rejected;
  private volatile ActivePolicy policy;
  private volatile ClusterSource clusterSource;

  /**
   * Where the cluster layer came from.
   *
   * @param configMap {@code namespace/name}
   * @param remembered resumed from the state database at start, not (yet) read from the API server
   */
  public record ClusterSource(String configMap, boolean remembered) {}

  private PolicyMetrics(PrometheusRegistry registry) {
    GaugeWithCallback.builder().name("crigate_policy_active_info")
        .help("1 for the resource policy that runs")
        .labelNames("policy")
        .callback(callback -> {
          ActivePolicy current = policy;
          if (current != null) {
            callback.call(1, current.active());
          }
        })
        .register(registry);
    GaugeWithCallback.builder().name("crigate_policy_cluster_configmap_info")
        .help("1 for the ConfigMap the policy's cluster layer came from, read from the API server or remembered from the last run")
        .labelNames("configmap", "from")
        .callback(callback -> {
          ClusterSource source = clusterSource;
          if (source != null) {
            callback.call(1, source.configMap(), source.remembered() ? "remembered" : "api-server");
          }
        })
        .register(registry);
    switches = Counter.builder().name("crigate_policy_switches_total")
        .help("Live switches from one resource policy to another")
        .register(registry);
    rejected = Counter.builder().name("crigate_policy_rejected_configurations_total")
        .help("Policy configurations refused, the previous one staying active, by the layer that brought them")
        .labelNames("layer")
        .register(registry);
  }

  /** The set of {@code registry}, made on first use. */
  public static synchronized PolicyMetrics in(PrometheusRegistry registry) {
    return BY_REGISTRY.computeIfAbsent(registry, PolicyMetrics::new);
  }

  /**
   * Reports {@code current} from now on, in place of any earlier policy. The earlier one's cluster
   * source goes with it: a new policy has no cluster layer until its ConfigMaps say so.
   */
  void attach(ActivePolicy current) {
    policy = current;
    clusterSource = null;
  }

  void switched() {
    switches.inc();
  }

  void rejected(ConfigLayer layer) {
    rejected.labelValues(layer.name().toLowerCase(Locale.ROOT)).inc();
  }

  /** The cluster layer now comes from {@code source}; null when the layer was dropped. */
  public void clusterLayerFrom(ClusterSource source) {
    clusterSource = source;
  }
}
