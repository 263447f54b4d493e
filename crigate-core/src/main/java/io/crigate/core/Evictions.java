package io.crigate.core;

import io.crigate.api.cri.v1.StopContainerRequest;
import io.crigate.spi.adjust.ContainerStopper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the evictions plugins ask for as containerd's NRI does: a StopContainer with no grace
 * period. It takes the kubelet's own path ({@link ContainerLifecycle#stopContainer}), so the owning
 * backend stops it under its own locks and state (a Slurm job is cancelled), and the plugins see the
 * StopContainer event. The kubelet then finds the container exited and applies the pod's restart policy.
 */
final class Evictions implements ContainerStopper {

  private static final Logger log = LoggerFactory.getLogger(Evictions.class);

  private final Owners owners;
  private final ContainerLifecycle containers;

  Evictions(Owners owners, ContainerLifecycle containers) {
    this.owners = owners;
    this.containers = containers;
  }

  @Override
  public void stop(String containerId, String evictedBy, String reason) {
    // off the caller's thread: the eviction arrives inside a plugin event, which holds the chain
    Thread.ofVirtual().name("evict-" + containerId).start(() -> evict(containerId, evictedBy, reason));
  }

  private void evict(String containerId, String evictedBy, String reason) {
    try {
      if (owners.ofContainerIfExists(containerId).isEmpty()) {
        log.warn("{} asked to evict container {} ({}), which no backend has; ignored", evictedBy, containerId, reason);
        return;
      }
      log.info("evicting container {}: asked by {} ({})", containerId, evictedBy, reason);
      containers.stopContainer(StopContainerRequest.newBuilder().setContainerId(containerId).setTimeout(0).build())
          .toCompletableFuture().join();
      log.info("evicted container {}: stopped for {} ({})", containerId, evictedBy, reason);
    } catch (RuntimeException e) {
      log.warn("could not evict container {} for {} ({}): {}", containerId, evictedBy, reason, e.toString());
    }
  }
}
