package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.LinuxResources;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.api.nri.v1alpha1.UpdateContainerResponse;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plugin mode: the runtime's NRI events run the same {@link PluginChain} as crigate's CRI proxy
 * path, and its results go back as NRI adjustments and updates.
 */
public final class ChainHandler implements NriHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ChainHandler.class);

  private final PluginChain chain;

  public ChainHandler(PluginChain chain) {
    this.chain = chain;
  }

  @Override
  public Set<Event> events() {
    return LifecycleEvents.toNri(Stream.of(LifecycleEvent.values()).filter(chain::wants)
        .collect(java.util.stream.Collectors.toSet()));
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodSandbox> pods, List<Container> containers) {
    return chain.synchronize(pods.stream().map(NriTranslation::pod).toList(),
        containers.stream().map(NriTranslation::container).toList())
        .stream().map(NriTranslation::update).toList();
  }

  @Override
  public CreateContainerResponse createContainer(PodSandbox pod, Container container) {
    PluginResult r = chain.createContainer(NriTranslation.pod(pod), NriTranslation.container(container));
    return CreateContainerResponse.newBuilder().setAdjust(NriTranslation.adjustment(r.adjustment()))
        .addAllUpdate(updates(r)).build();
  }

  @Override
  public UpdateContainerResponse updateContainer(PodSandbox pod, Container container, LinuxResources resources) {
    PluginResult r = chain.updateContainerResources(NriTranslation.pod(pod), NriTranslation.container(container),
        NriTranslation.resources(resources));
    // NRI has no adjustment for an update: a plugin's resource overrides travel as an update of this container
    List<ContainerUpdate> updates = new java.util.ArrayList<>(updates(r));
    if (!r.adjustment().resources().isEmpty()) {
      updates.add(NriTranslation.update(io.crigate.spi.adjust.ContainerUpdate.of(container.getId(),
          NriTranslation.resources(resources).overriddenBy(r.adjustment().resources()))));
    }
    return UpdateContainerResponse.newBuilder().addAllUpdate(updates).build();
  }

  @Override
  public void updatePodSandbox(PodSandbox pod, LinuxResources overhead, LinuxResources resources) {
    PluginResult r = chain.updatePodSandboxResources(NriTranslation.pod(pod), NriTranslation.resources(overhead),
        NriTranslation.resources(resources));
    unanswerable("UpdatePodSandbox", r);
  }

  @Override
  public List<ContainerUpdate> stopContainer(PodSandbox pod, Container container) {
    return updates(chain.stopContainer(NriTranslation.pod(pod), NriTranslation.container(container)));
  }

  @Override
  public void observe(Event event, PodSandbox pod, Container container) {
    var p = NriTranslation.pod(pod);
    switch (event) {
      case RUN_POD_SANDBOX -> chain.runPodSandbox(p);
      case STOP_POD_SANDBOX -> chain.stopPodSandbox(p);
      case REMOVE_POD_SANDBOX -> chain.removePodSandbox(p);
      case POST_CREATE_CONTAINER -> chain.postCreateContainer(p, NriTranslation.container(container));
      case START_CONTAINER -> chain.startContainer(p, NriTranslation.container(container));
      case POST_START_CONTAINER -> chain.postStartContainer(p, NriTranslation.container(container));
      case POST_UPDATE_CONTAINER -> chain.postUpdateContainerResources(p, NriTranslation.container(container));
      case REMOVE_CONTAINER -> chain.removeContainer(p, NriTranslation.container(container));
      case POST_UPDATE_POD_SANDBOX -> unanswerable("PostUpdatePodSandbox", chain.postUpdatePodSandboxResources(p));
      default -> {
        // the events that carry an answer have methods of their own
      }
    }
  }

  /** v0.12.2's pod update answers carry no updates: the engine's are logged, not lost silently. */
  private static void unanswerable(String event, PluginResult r) {
    if (!r.updates().isEmpty()) {
      LOG.warn("{}: NRI cannot carry the engine's updates of {} in its answer; not applied",
          event, r.updates().stream().map(io.crigate.spi.adjust.ContainerUpdate::containerId).toList());
    }
  }

  private static List<ContainerUpdate> updates(PluginResult r) {
    return r.updates().stream().map(NriTranslation::update).toList();
  }
}
