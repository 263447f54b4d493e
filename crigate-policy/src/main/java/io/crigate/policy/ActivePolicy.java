package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.policy.seed.UnreadPodAnnotations;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.ContainerUpdater;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.OwnedResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuTopology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adjustment plugin named {@code policy}: delegates to the active policy and swaps it live. A
 * switch builds the new policy, synchronizes it with every pod and container seen so far, and
 * pushes the resulting updates (CRI Resource Manager could not switch policies live; we can
 * because every policy answers Synchronize).
 */
public final class ActivePolicy implements AdjustmentPlugin {

  public static final String NAME = "policy";
  private static final Logger log = LoggerFactory.getLogger(ActivePolicy.class);

  private final CpuTopology topology;
  private final DurableStore store;
  private final ContainerUpdater updater;
  private final PolicyMetrics metrics;
  private final Map<String, PodContext> pods = new LinkedHashMap<>();
  private final Map<ContainerKey, ContainerContext> containers = new LinkedHashMap<>();
  /** Pods whose unread seed annotations were logged: once per pod, whether created or recovered. */
  private final Set<String> announced = new HashSet<>();
  private final OwnedResources closeWith = new OwnedResources("the resource policy");
  private PolicyLayers layers;
  private PolicySettings settings;
  private AdjustmentPlugin policy;

  ActivePolicy(CpuTopology topology, DurableStore store, ContainerUpdater updater, PolicyLayers layers,
      PolicyMetrics metrics) {
    this.topology = topology;
    this.store = store;
    this.updater = updater;
    this.metrics = metrics;
    this.layers = layers;
    this.settings = read(layers.merged());
    this.policy = build(settings);
    metrics.attach(this);
  }

  /** Builds the plugin for its configuration, discovering topology under its {@code sysfsRoot}. */
  static ActivePolicy create(PolicyLayers layers, DurableStore store, ContainerUpdater updater, PolicyMetrics metrics) {
    CpuTopology topology = io.crigate.topology.Sysfs.discover(PolicySettings.sysfsRoot(layers.merged()));
    return new ActivePolicy(topology, store, updater, layers, metrics);
  }

  @Override
  public String name() {
    return NAME;
  }

  public synchronized String active() {
    return settings.active();
  }

  /** Where this policy reports what it did; the ConfigMap layer adds where its configuration came from. */
  public PolicyMetrics metrics() {
    return metrics;
  }

  /**
   * Puts {@code overlay} in place as {@code layer}'s configuration and applies the result. A bad one
   * throws {@link io.crigate.spi.CrigateException} naming the field, and the running configuration
   * (every layer as it was) stays.
   *
   * @return the updates that failed to apply
   */
  public List<ContainerUpdate> reconfigure(ConfigLayer layer, JsonNode overlay) {
    return countingRefusal(layer, () -> apply(layers.with(layer, checked(layer, overlay))));
  }

  private static JsonNode checked(ConfigLayer layer, JsonNode overlay) {
    if (!overlay.isObject()) {
      throw new CrigateException.InvalidArgument(
          "the %s policy configuration must be a mapping of policy settings".formatted(layer.name().toLowerCase(Locale.ROOT)));
    }
    for (String key : PolicySettings.START_ONLY) {
      if (overlay.has(key)) {
        throw new CrigateException.InvalidArgument("policy.%s is read at start only; set it in crigate's configuration, not the %s source"
            .formatted(key, layer.name().toLowerCase(Locale.ROOT)));
      }
    }
    return overlay;
  }

  /** Drops {@code layer}'s configuration (its ConfigMap or file is gone) and applies what remains. */
  public List<ContainerUpdate> clear(ConfigLayer layer) {
    return countingRefusal(layer, () -> apply(layers.without(layer)));
  }

  /** Runs {@code change}, counting it as {@code layer}'s refused configuration when it throws. */
  private List<ContainerUpdate> countingRefusal(ConfigLayer layer, Supplier<List<ContainerUpdate>> change) {
    try {
      return change.get();
    } catch (CrigateException e) {
      metrics.rejected(layer);
      throw e;
    }
  }

  private List<ContainerUpdate> apply(PolicyLayers next) {
    List<ContainerUpdate> updates;
    synchronized (this) {
      PolicySettings nextSettings = read(next.merged());
      if (nextSettings.equals(settings)) {
        layers = next;
        return List.of();
      }
      AdjustmentPlugin replacement = build(nextSettings);
      layers = next;
      log.info("switching policy {} -> {} ({} containers replanned)", settings.active(), nextSettings.active(), containers.size());
      if (!nextSettings.active().equals(settings.active())) {
        metrics.switched();
      }
      policy.close();
      policy = replacement;
      settings = nextSettings;
      updates = synchronizeTracked();
    }
    return updater.update(updates);
  }

  @Override
  public synchronized List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    this.pods.clear();
    this.containers.clear();
    pods.forEach(p -> this.pods.put(p.id(), p));
    containers.forEach(c -> this.containers.put(c.key(), c));
    // Recovered pods never pass through createContainer's first-container check below.
    pods.forEach(this::announce);
    return synchronizeTracked();
  }

  @Override
  public synchronized PluginResult runPodSandbox(PodContext pod) {
    return policy.runPodSandbox(pod);
  }

  /**
   * CRI's StopPodSandbox stops every container of the pod without a StopContainer for each (the
   * kubelet sends those first, other clients need not), so what they hold is released here.
   */
  @Override
  public synchronized PluginResult stopPodSandbox(PodContext pod) {
    List<ContainerUpdate> updates = new ArrayList<>();
    containers.values().stream().filter(c -> c.podId().equals(pod.id())).toList()
        .forEach(c -> updates.addAll(tracked(() -> policy.stopContainer(pod, c)).updates()));
    updates.addAll(tracked(() -> policy.stopPodSandbox(pod)).updates());
    return PluginResult.update(updates);
  }

  /** RemovePodSandbox removes the pod's containers too: they are forgotten with it. */
  @Override
  public synchronized PluginResult removePodSandbox(PodContext pod) {
    PluginResult stopped = stopPodSandbox(pod);
    containers.values().removeIf(c -> c.podId().equals(pod.id()));
    pods.remove(pod.id());
    announced.remove(pod.id());
    List<ContainerUpdate> updates = new ArrayList<>(stopped.updates());
    updates.addAll(policy.removePodSandbox(pod).updates());
    return PluginResult.update(updates);
  }

  @Override
  public synchronized PluginResult createContainer(PodContext pod, ContainerContext container) {
    pods.putIfAbsent(pod.id(), pod);
    announce(pod);
    return policy.createContainer(pod, container);
  }

  @Override
  public synchronized PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    containers.put(container.key(), container);
    return tracked(() -> policy.postCreateContainer(pod, container));
  }

  @Override
  public synchronized PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    PluginResult result = tracked(() -> policy.updateContainerResources(pod, container, requested));
    containers.computeIfPresent(container.key(), (k, c) -> c.withResources(
        c.resources().overriddenBy(requested).overriddenBy(result.adjustment().resources())));
    return result;
  }

  @Override
  public synchronized PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return tracked(() -> policy.stopContainer(pod, container));
  }

  @Override
  public synchronized PluginResult removeContainer(PodContext pod, ContainerContext container) {
    containers.remove(container.key());
    return tracked(() -> policy.removeContainer(pod, container));
  }

  private void announce(PodContext pod) {
    if (announced.add(pod.id())) {
      UnreadPodAnnotations.logFor(settings.active(), !settings.reservedCpus().isEmpty(), pod.name(), pod.namespace(), pod.annotations());
    }
  }

  /** Something that lives as long as this plugin, such as the watch of a live configuration source. */
  public void closeWith(AutoCloseable resource) {
    closeWith.add(resource);
  }

  @Override
  public void close() {
    closeWith.close();
    synchronized (this) {
      policy.close();
    }
  }

  private PluginResult tracked(Supplier<PluginResult> call) {
    PluginResult result = call.get();
    track(result.updates());
    return result;
  }

  private List<ContainerUpdate> synchronizeTracked() {
    List<ContainerUpdate> updates = policy.synchronize(new ArrayList<>(pods.values()), new ArrayList<>(containers.values()));
    track(updates);
    return updates;
  }

  private void track(List<ContainerUpdate> updates) {
    for (ContainerUpdate update : updates) {
      containers.replaceAll((key, c) -> c.id().equals(update.containerId())
          ? c.withResources(c.resources().overriddenBy(update.resources())) : c);
    }
  }

  private PolicySettings read(JsonNode config) {
    PolicySettings read = PolicySettings.read(config, Policies.ALL.keySet(), topology);
    KubeletCpuManager.checkCompatible(read.active(), read.kubeletCpuManagerState());
    return read;
  }

  private AdjustmentPlugin build(PolicySettings next) {
    return Policies.create(next, topology, new PrefixedStore(store, next.active() + "/"));
  }
}
