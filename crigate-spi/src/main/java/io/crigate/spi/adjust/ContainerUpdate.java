package io.crigate.spi.adjust;

/**
 * A resource change for a container other than the one whose event is being handled (for example
 * every shared-pool container when an exclusive allocation shrinks the pool). CRI delivers it as
 * UpdateContainerResources, NRI as a ContainerUpdate.
 *
 * @param containerId the runtime's id of the container to change
 * @param resources the fields to change
 * @param ignoreFailure whether a failure to apply it (the container is gone) is only logged
 */
public record ContainerUpdate(String containerId, LinuxResources resources, boolean ignoreFailure) {

  public ContainerUpdate {
    if (containerId.isEmpty()) {
      throw new IllegalArgumentException("a container update needs a container id");
    }
  }

  public static ContainerUpdate of(String containerId, LinuxResources resources) {
    return new ContainerUpdate(containerId, resources, false);
  }
}
