package io.crigate.interlink.wire;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * The body interLink sends to a plugin's {@code /create}: the pod and, per init container then
 * container in spec order, the ConfigMaps, Secrets and projected volume data its mounts reference.
 */
public record RetrievedPodData(Pod pod, List<RetrievedContainer> container) {

  public List<RetrievedContainer> containersOrEmpty() {
    return container == null ? List.of() : container;
  }
}
