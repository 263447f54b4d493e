package io.crigate.hooks;

import java.util.Map;

/**
 * The pod as hooks see it, built from a CRI request, an NRI event or a CRI listing.
 *
 * @param sandboxId empty before the sandbox exists (PreRunPodSandbox in proxy mode)
 * @param cgroupParent the pod's cgroup as the kubelet names it; empty when the caller set none
 */
public record PodContext(String sandboxId, String name, String namespace, String uid, Map<String, String> labels,
    Map<String, String> annotations, String cgroupParent) {

  public PodContext {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  /** namespace/name, for log lines and error messages. */
  public String ref() {
    return namespace + "/" + name;
  }
}
