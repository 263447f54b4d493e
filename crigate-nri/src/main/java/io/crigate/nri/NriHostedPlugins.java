package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerStopper;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.ContainerUpdater;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Host mode as the engine sees it: one {@link AdjustmentPlugin} that hands every event to the
 * external NRI plugins connected to crigate's {@link NriRuntime} and returns their merged answer.
 * It sits in the same chain as crigate's own policies, so the proxy path of every backend (the
 * Slurm one included) drives NRI plugins without knowing NRI.
 */
public final class NriHostedPlugins implements AdjustmentPlugin {

  public static final String NAME = "nri";
  private static final Logger LOG = LoggerFactory.getLogger(NriHostedPlugins.class);

  private final NriRuntime runtime;
  /** What a plugin that connects later is synchronized with: what the chain has seen, by id. */
  private final Map<String, PodSandbox> pods = new ConcurrentHashMap<>();
  private final Map<String, Container> containers = new ConcurrentHashMap<>();

  public NriHostedPlugins(NriRuntime runtime) {
    this.runtime = runtime;
  }

  private NriHostedPlugins(NriRuntime.Settings settings, ContainerUpdater updater, ContainerStopper stopper) {
    this.runtime = new NriRuntime(settings, this::state,
        updates -> updater.update(updates.stream().map(NriTranslation::update).toList())
            .stream().map(NriTranslation::update).toList(), stopper);
  }

  /**
   * Host mode as crigate serve runs it: listens on the settings' socket; updates plugins send
   * (Synchronize answers, unsolicited UpdateContainers) go to {@code updater}, the gateway's
   * UpdateContainerResources path, and the containers they evict to {@code stopper}, its StopContainer path.
   */
  public static NriHostedPlugins start(NriRuntime.Settings settings, ContainerUpdater updater, ContainerStopper stopper)
      throws IOException {
    NriHostedPlugins hosted = new NriHostedPlugins(settings, updater, stopper);
    hosted.runtime.start();
    return hosted;
  }

  private NriRuntime.State state() {
    return new NriRuntime.State(List.copyOf(pods.values()), List.copyOf(containers.values()));
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    this.pods.clear();
    this.containers.clear();
    pods.forEach(p -> this.pods.put(p.id(), NriTranslation.pod(p)));
    containers.forEach(c -> this.containers.put(c.id(), NriTranslation.container(c)));
    return List.of();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PluginResult runPodSandbox(PodContext pod) {
    runtime.runPodSandbox(NriTranslation.pod(pod));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult stopPodSandbox(PodContext pod) {
    runtime.stopPodSandbox(NriTranslation.pod(pod));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult removePodSandbox(PodContext pod) {
    pods.remove(pod.id());
    runtime.removePodSandbox(NriTranslation.pod(pod));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult updatePodSandboxResources(PodContext pod, LinuxResources overhead, LinuxResources resources) {
    runtime.updatePodSandbox(NriTranslation.pod(pod), NriTranslation.resources(overhead), NriTranslation.resources(resources));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult postUpdatePodSandboxResources(PodContext pod) {
    pods.put(pod.id(), NriTranslation.pod(pod));
    runtime.postUpdatePodSandbox(NriTranslation.pod(pod));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    if (!pod.id().isEmpty()) {
      pods.put(pod.id(), NriTranslation.pod(pod));
    }
    NriRuntime.Creation c = runtime.createContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    Adjustment adjustment = NriTranslation.adjustment(c.adjustment());
    // mounts are compared apart: a clean one may come back with its options in another order
    ContainerAdjustment carried = NriTranslation.adjustment(adjustment).toBuilder().clearMounts().build();
    if (!carried.equals(c.adjustment().toBuilder().clearMounts().build())) {
      LOG.warn("container {}/{}: NRI plugins adjusted fields crigate's engine does not carry (only env, annotations, "
          + "mounts, oom_score_adj and cpu/memory resources are applied); owners: {}", pod.name(), container.name(), c.owners());
    }
    List<io.crigate.api.nri.v1alpha1.Mount> dropped = NriMounts.read(c.adjustment().getMountsList()).dropped();
    if (!dropped.isEmpty()) {
      LOG.warn("container {}/{}: NRI plugins' mounts dropped, crigate carries only type bind with options [rbind] or "
          + "[rbind, ro] at absolute paths, one per path: {}", pod.name(), container.name(), dropped.stream()
              .map(m -> c.owners().get("adjust.mounts[" + m.getDestination() + "]") + ": " + NriMounts.describe(m)).toList());
    }
    return new PluginResult(adjustment, updates(c.updates()));
  }

  @Override
  public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    containers.put(container.id(), NriTranslation.container(container));
    runtime.postCreateContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult startContainer(PodContext pod, ContainerContext container) {
    runtime.startContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult postStartContainer(PodContext pod, ContainerContext container) {
    runtime.postStartContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    return PluginResult.update(updates(runtime.updateContainer(NriTranslation.pod(pod), NriTranslation.container(container),
        NriTranslation.resources(requested))));
  }

  @Override
  public PluginResult postUpdateContainerResources(PodContext pod, ContainerContext container) {
    runtime.postUpdateContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return PluginResult.NONE;
  }

  @Override
  public PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return PluginResult.update(updates(runtime.stopContainer(NriTranslation.pod(pod), NriTranslation.container(container))));
  }

  @Override
  public PluginResult removeContainer(PodContext pod, ContainerContext container) {
    containers.remove(container.id());
    runtime.removeContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return PluginResult.NONE;
  }

  @Override
  public void close() {
    runtime.close();
  }

  private static List<ContainerUpdate> updates(List<io.crigate.api.nri.v1alpha1.ContainerUpdate> updates) {
    return updates.stream().map(NriTranslation::update).toList();
  }
}
