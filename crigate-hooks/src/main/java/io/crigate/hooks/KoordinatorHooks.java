package io.crigate.hooks;

import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.OwnedResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hook engine as one plugin of the adjustment engine: each lifecycle event runs the hooks of
 * the matching Koordinator stage in order and answers their combined adjustment. Being one plugin,
 * it is used unchanged by the CRI proxy door, the NRI plugin and the standalone reconciler.
 *
 * <p>The hook list can be replaced while calls run ({@link #reconfigure}); each call uses the list
 * that was current when it began.
 */
public final class KoordinatorHooks implements AdjustmentPlugin {

  public static final String NAME = "koordinator-hooks";

  private static final Logger log = LoggerFactory.getLogger(KoordinatorHooks.class);

  private volatile HookChain chain;
  private final Optional<PodCgroupWriter> podCgroups;
  private final OwnedResources closeWith = new OwnedResources("the runtime hooks");

  /** For standalone mode, whose reconciler writes the pod cgroup itself. */
  public KoordinatorHooks(HookChain chain) {
    this(chain, Optional.empty());
  }

  /** @param podCgroups where proxy and NRI mode write PreRunPodSandbox's pod-level values */
  public KoordinatorHooks(HookChain chain, Optional<PodCgroupWriter> podCgroups) {
    this.chain = chain;
    this.podCgroups = podCgroups;
  }

  /** Swaps in a new hook list; calls already running finish with the old one. */
  public void reconfigure(HookChain next) {
    chain = next;
    log.info("runtime hooks now {}", next.registrations().stream()
        .map(r -> r.hook().name() + "(" + r.order() + ", " + r.failurePolicy() + ")").toList());
  }

  public HookChain chain() {
    return chain;
  }

  /** Closes {@code resource} (the watch of a live configuration file) when the plugin closes. */
  public void closeWith(AutoCloseable resource) {
    closeWith.add(resource);
  }

  @Override
  public void close() {
    closeWith.close();
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Every event a stage maps to; the chain decides per call whether a hook is listening. */
  @Override
  public Set<LifecycleEvent> events() {
    return EnumSet.of(LifecycleEvent.RUN_POD_SANDBOX, LifecycleEvent.STOP_POD_SANDBOX,
        LifecycleEvent.REMOVE_POD_SANDBOX, LifecycleEvent.CREATE_CONTAINER, LifecycleEvent.START_CONTAINER,
        LifecycleEvent.POST_START_CONTAINER, LifecycleEvent.UPDATE_CONTAINER_RESOURCES, LifecycleEvent.STOP_CONTAINER);
  }

  @Override
  public PluginResult runPodSandbox(PodContext pod) {
    PluginResult result = pod(Stage.PRE_RUN_POD_SANDBOX, pod);
    podCgroups.ifPresent(writer -> writer.write(pod, result.adjustment().resources()));
    return result;
  }

  @Override
  public PluginResult stopPodSandbox(PodContext pod) {
    return pod(Stage.POST_STOP_POD_SANDBOX, pod);
  }

  @Override
  public PluginResult removePodSandbox(PodContext pod) {
    return pod(Stage.PRE_REMOVE_POD_SANDBOX, pod);
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    return container(Stage.PRE_CREATE_CONTAINER, pod, container);
  }

  @Override
  public PluginResult startContainer(PodContext pod, ContainerContext container) {
    return container(Stage.PRE_START_CONTAINER, pod, container);
  }

  @Override
  public PluginResult postStartContainer(PodContext pod, ContainerContext container) {
    return container(Stage.POST_START_CONTAINER, pod, container);
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    return container(Stage.PRE_UPDATE_CONTAINER_RESOURCES, pod, container);
  }

  @Override
  public PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return container(Stage.POST_STOP_CONTAINER, pod, container);
  }

  private PluginResult pod(Stage stage, PodContext pod) {
    HookChain current = chain;
    return current.handles(stage) ? result(current.runPod(stage, pod)) : PluginResult.NONE;
  }

  private PluginResult container(Stage stage, PodContext pod, ContainerContext container) {
    HookChain current = chain;
    return current.handles(stage) ? result(current.runContainer(stage, pod, container)) : PluginResult.NONE;
  }

  private static PluginResult result(Adjustment adjustment) {
    return adjustment.isEmpty() ? PluginResult.NONE : PluginResult.adjust(adjustment);
  }
}
