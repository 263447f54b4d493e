package io.crigate.spi.adjust;

import java.util.List;
import java.util.Set;

/**
 * What resource policies, runtime hooks and hosted NRI plugins implement: lifecycle events in,
 * {@link PluginResult}s out. Every door (CRI proxy, NRI plugin, standalone reconciler) calls plugins
 * only through a {@link PluginChain}, which serializes the calls, so an implementation may keep its
 * state without locking as long as it only changes it inside these methods.
 *
 * <p>Timing, in every door: RunPodSandbox, CreateContainer, StartContainer, UpdateContainerResources,
 * RemoveContainer and RemovePodSandbox come before the runtime acts; the post events, StopContainer and
 * StopPodSandbox after it did. Throw a {@link io.crigate.spi.CrigateException} to reject the call
 * with that status; any other exception fails it as an internal error.
 */
public interface AdjustmentPlugin extends AutoCloseable {

  /** Unique within one chain; conflict messages name it. */
  String name();

  /** The events this plugin wants; the chain skips it for the others, NRI registers only these. */
  default Set<LifecycleEvent> events() {
    return LifecycleEvent.ALL;
  }

  /**
   * The pods and containers that exist when the plugin starts (or the runtime reconnects), with
   * their running resources; answers the updates that bring them in line with the plugin's plan.
   * Called before any other event, and again after a switch of configuration.
   */
  default List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    return List.of();
  }

  /** Before the sandbox is created; the adjustment's annotations and resources apply to the sandbox. */
  default PluginResult runPodSandbox(PodContext pod) {
    return PluginResult.NONE;
  }

  /** After the sandbox was stopped. */
  default PluginResult stopPodSandbox(PodContext pod) {
    return PluginResult.NONE;
  }

  /** Before the sandbox is removed. */
  default PluginResult removePodSandbox(PodContext pod) {
    return PluginResult.NONE;
  }

  /**
   * Before a caller's (the kubelet's) pod-level resource update reaches the runtime. Neither CRI nor
   * NRI lets the answer change the pod's resources; only updates of containers count.
   *
   * @param overhead the pod's overhead as requested, {@link LinuxResources#NONE} if none
   * @param resources the pod's new resources as requested
   */
  default PluginResult updatePodSandboxResources(PodContext pod, LinuxResources overhead, LinuxResources resources) {
    return PluginResult.NONE;
  }

  /** After the pod's resources were updated. Only updates count. */
  default PluginResult postUpdatePodSandboxResources(PodContext pod) {
    return PluginResult.NONE;
  }

  /** Before the container is created: the place to assign CPUs, memory nodes, limits and env. */
  default PluginResult createContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /** After the container was created; {@code container.id()} is now known. Only updates count. */
  default PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /** Before the container starts; the adjustment's resources are applied to it first. */
  default PluginResult startContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /** After the container started. Only updates count. */
  default PluginResult postStartContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /**
   * Before a caller's resource update (typically the kubelet's) reaches the runtime. The
   * adjustment's resource fields replace those in {@code requested}, e.g. to keep a policy-owned cpuset.
   */
  default PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    return PluginResult.NONE;
  }

  /** After the update was applied; {@code container.resources()} is what it now runs with. */
  default PluginResult postUpdateContainerResources(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /** After the container stopped: the place to release what it held. */
  default PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  /** Before the container is removed; also releases a container that was never seen stopping. */
  default PluginResult removeContainer(PodContext pod, ContainerContext container) {
    return PluginResult.NONE;
  }

  @Override
  default void close() {}
}
