package io.crigate.hooks;

import java.util.Map;

/**
 * One container as hooks see it.
 *
 * @param containerId empty before the container exists (PreCreateContainer)
 * @param env the environment the container is created with
 * @param requested the resources the caller asked for (the kubelet's values), before any hook
 */
public record ContainerContext(PodContext pod, String containerId, String name, Map<String, String> env,
    Resources requested) {

  public ContainerContext {
    env = Map.copyOf(env);
  }

  /** namespace/pod/container, for log lines and error messages. */
  public String ref() {
    return pod.ref() + "/" + name;
  }
}
