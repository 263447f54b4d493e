package io.crigate.policy;

import io.crigate.spi.adjust.ContainerKey;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The containers of one balloon with what a placement asks about them (summed request, which pods
 * and namespaces are present), kept as containers come and go so that no decision scans every
 * container on the node.
 */
final class BalloonOccupants {

  private final Set<ContainerKey> keys = new LinkedHashSet<>();
  private final Map<String, Integer> pods = new HashMap<>();
  private final Map<String, Integer> namespaces = new HashMap<>();
  private long milli;

  void add(ContainerKey key, String podId, String namespace, long request) {
    if (keys.add(key)) {
      pods.merge(podId, 1, Integer::sum);
      namespaces.merge(namespace, 1, Integer::sum);
      milli += request;
    }
  }

  void remove(ContainerKey key, String podId, String namespace, long request) {
    if (keys.remove(key)) {
      pods.computeIfPresent(podId, (k, n) -> n == 1 ? null : n - 1);
      namespaces.computeIfPresent(namespace, (k, n) -> n == 1 ? null : n - 1);
      milli -= request;
    }
  }

  boolean isEmpty() {
    return keys.isEmpty();
  }

  /** The containers' summed CPU requests. */
  long milli() {
    return milli;
  }

  boolean hasPod(String podId) {
    return pods.containsKey(podId);
  }

  boolean hasNamespace(String namespace) {
    return namespaces.containsKey(namespace);
  }

  Set<ContainerKey> keys() {
    return Collections.unmodifiableSet(keys);
  }
}
