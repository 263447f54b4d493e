package io.crigate.spi.adjust;

import java.util.Map;

/**
 * A container as plugins see it.
 *
 * @param key stable identity from CreateContainer to RemoveContainer
 * @param id the runtime's container id; empty in the proxy door's CreateContainer, before the
 *     runtime assigned it ({@link AdjustmentPlugin#postCreateContainer} brings it)
 * @param labels the container's labels
 * @param annotations the container's annotations
 * @param env the container's environment as requested
 * @param requirements the container's requests and limits: the webhook annotation's when present,
 *     else derived from the CRI/NRI resources (shares → request, quota/period → limit)
 * @param resources the container's cgroup resources as requested (CreateContainer) or as running
 *     (later events, synchronize)
 */
public record ContainerContext(ContainerKey key, String id, Map<String, String> labels,
    Map<String, String> annotations, Map<String, String> env, ResourceRequirements requirements,
    LinuxResources resources) {

  public ContainerContext {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    env = Map.copyOf(env);
  }

  public String name() {
    return key.name();
  }

  public String podId() {
    return key.podId();
  }

  public ContainerContext withId(String containerId) {
    return new ContainerContext(key, containerId, labels, annotations, env, requirements, resources);
  }

  public ContainerContext withResources(LinuxResources running) {
    return new ContainerContext(key, id, labels, annotations, env, requirements, running);
  }
}
