package io.crigate.spi.adjust;

/**
 * Stops a container a plugin asked to evict (NRI's ContainerEviction), the way the owner of the
 * container's lifecycle would: containerd's NRI stops an evicted container at once, and crigate's
 * CRI door does the same through the container's owning backend. A door without a lifecycle of its
 * own (crigate as a plugin of containerd) has no stopper; it passes the eviction to its runtime.
 */
@FunctionalInterface
public interface ContainerStopper {

  /**
   * Starts stopping the container and returns at once: an eviction arrives inside another event,
   * whose locks the stop must not wait for. An id nobody owns is ignored, as NRI's runtime does.
   *
   * @param evictedBy who asked, for the log (an NRI plugin's {@code idx-name})
   * @param reason the plugin's reason, logged with the stop
   */
  void stop(String containerId, String evictedBy, String reason);
}
