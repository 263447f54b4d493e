package io.crigate.spi.adjust;

import java.util.Collection;

/** The Kubernetes QoS class of a pod, which CRI does not carry directly. */
public enum QosClass {
  GUARANTEED,
  BURSTABLE,
  BEST_EFFORT;

  /**
   * The class Kubernetes computes from every container's requirements: Guaranteed when each
   * container limits CPU and memory and requests equal limits, BestEffort when nothing is requested
   * or limited, Burstable otherwise.
   */
  public static QosClass of(Collection<ResourceRequirements> containers) {
    if (containers.isEmpty() || containers.stream().allMatch(ResourceRequirements::isEmpty)) {
      return BEST_EFFORT;
    }
    return containers.stream().allMatch(ResourceRequirements::isGuaranteed) ? GUARANTEED : BURSTABLE;
  }

  /**
   * The class the kubelet encoded in the pod's cgroup parent: {@code kubepods/burstable/pod…} or
   * {@code kubepods-besteffort-pod….slice}; a pod cgroup directly under {@code kubepods} is Guaranteed.
   * Returns {@code fallback} for a parent that is not a kubelet pod cgroup.
   */
  public static QosClass fromCgroupParent(String cgroupParent, QosClass fallback) {
    String parent = cgroupParent.toLowerCase(java.util.Locale.ROOT);
    if (!parent.contains("kubepods")) {
      return fallback;
    }
    if (parent.contains("besteffort")) {
      return BEST_EFFORT;
    }
    return parent.contains("burstable") ? BURSTABLE : GUARANTEED;
  }
}
