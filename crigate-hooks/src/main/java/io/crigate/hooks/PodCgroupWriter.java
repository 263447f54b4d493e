package io.crigate.hooks;

import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the pod-level values of PreRunPodSandbox into the pod's cgroup on the host, in proxy and NRI
 * mode. Neither door can carry them to the runtime: containerd 1.6 ignores RunPodSandbox's
 * {@code linux.resources} for the pod cgroup (the kubelet creates and owns that cgroup), and NRI
 * gives plugins no adjustment of a pod at all; so crigate writes them itself, as Koordinator's
 * koordlet does. The kubelet creates the pod cgroup before it calls RunPodSandbox, so the values
 * are in force before the first container starts. A pod without a cgroup parent (one not from a
 * kubelet, or a backend that is not on this host) has nothing to write to.
 */
public final class PodCgroupWriter {

  private static final Logger log = LoggerFactory.getLogger(PodCgroupWriter.class);

  private final HostCgroups host;

  public PodCgroupWriter(HostCgroups host) {
    this.host = host;
  }

  /**
   * Writes what is set. A failed write is logged naming the pod and left: the pod's containers
   * still get their own values, and the next sandbox of the pod tries again.
   */
  void write(PodContext pod, LinuxResources resources) {
    if (resources.isEmpty() || pod.cgroupParent().isEmpty()) {
      return;
    }
    try {
      host.write(pod.cgroupParent(), resources);
    } catch (UncheckedIOException e) {
      log.warn("runtime hooks: pod {}/{}: pod-level values not written to cgroup {}: {}", pod.namespace(), pod.name(),
          pod.cgroupParent(), e.getMessage());
    }
  }
}
