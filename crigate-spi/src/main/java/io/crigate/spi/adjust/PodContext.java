package io.crigate.spi.adjust;

import java.util.Map;

/**
 * A pod as plugins see it, built by each door from what its transport carries (CRI PodSandboxConfig,
 * NRI PodSandbox) plus the resource annotation of crigate's webhook when present.
 *
 * @param id the sandbox id; empty during RunPodSandbox in the proxy door, before the runtime assigned one
 * @param name the pod's name
 * @param namespace the pod's namespace
 * @param uid the pod's uid
 * @param qosClass the Kubernetes QoS class: from the webhook annotation if present, else the cgroup parent
 * @param labels the pod's labels
 * @param annotations the pod's annotations
 * @param cgroupParent the kubelet's cgroup parent for the pod, empty if unknown
 * @param runtimeHandler the RuntimeClass handler the pod was started with (empty = default)
 * @param resources the pod-level requests and limits (sum of containers, or pod-level resources)
 * @param containerResources each container's requests and limits by container name, from the webhook
 *     annotation; empty without it
 */
public record PodContext(String id, String name, String namespace, String uid, QosClass qosClass,
    Map<String, String> labels, Map<String, String> annotations, String cgroupParent, String runtimeHandler,
    ResourceRequirements resources, Map<String, ResourceRequirements> containerResources) {

  public PodContext {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    containerResources = Map.copyOf(containerResources);
  }

  public PodContext withId(String sandboxId) {
    return new PodContext(sandboxId, name, namespace, uid, qosClass, labels, annotations, cgroupParent,
        runtimeHandler, resources, containerResources);
  }

  /** The annotation {@code key}, or a container-scoped variant {@code key/container.<name>} if set. */
  public String annotation(String key, String containerName, String fallback) {
    String scoped = annotations.get(key + "/container." + containerName);
    if (scoped != null) {
      return scoped;
    }
    return annotations.getOrDefault(key + "/pod", annotations.getOrDefault(key, fallback));
  }
}
