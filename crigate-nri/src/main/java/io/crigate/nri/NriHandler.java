package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.LinuxResources;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.api.nri.v1alpha1.UpdateContainerResponse;
import java.util.List;
import java.util.Set;

/**
 * What crigate does when it runs as an NRI plugin: the answers to the runtime's requests. Every
 * method has a neutral default, so an implementation overrides only the events it subscribes to.
 */
public interface NriHandler {

  /** The events to subscribe to, answered in Configure. */
  Set<Event> events();

  /** Called once per connection after Configure, with the runtime's whole state. */
  default List<ContainerUpdate> synchronize(List<PodSandbox> pods, List<Container> containers) {
    return List.of();
  }

  default CreateContainerResponse createContainer(PodSandbox pod, Container container) {
    return CreateContainerResponse.getDefaultInstance();
  }

  default UpdateContainerResponse updateContainer(PodSandbox pod, Container container, LinuxResources resources) {
    return UpdateContainerResponse.getDefaultInstance();
  }

  /** A pod's resources change (v0.12.2); the answer carries nothing. By default it goes to {@link #observe}. */
  default void updatePodSandbox(PodSandbox pod, LinuxResources overhead, LinuxResources resources) {
    observe(Event.UPDATE_POD_SANDBOX, pod, Container.getDefaultInstance());
  }

  default List<ContainerUpdate> stopContainer(PodSandbox pod, Container container) {
    return List.of();
  }

  /**
   * Every event that only informs: pod run/stop/remove/update, container start/remove, post-*.
   * For pod events {@code container} is the empty default instance.
   */
  default void observe(Event event, PodSandbox pod, Container container) {
  }
}
