package io.crigate.interlink.wire;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * The body interLink sends to a plugin's {@code /create}: the pod and, per init container then
 * container in spec order, the ConfigMaps, Secrets and projected volume data its mounts reference.
 */
public record RetrievedPodData(Pod pod, List<RetrievedContainer> container) {

  /**
   * crigate's mark on a /create that only re-sends a created pod's projected volumes (fresh service
   * account tokens): the plugin rewrites their files and never creates a pod from it. An annotation,
   * because the pod is all of the body that interLink's API server passes on.
   */
  public static final String VOLUME_REFRESH_ANNOTATION = "interlink.crigate.io/volume-refresh";

  public boolean isVolumeRefresh() {
    return pod != null && pod.getMetadata() != null && pod.getMetadata().getAnnotations() != null
        && pod.getMetadata().getAnnotations().containsKey(VOLUME_REFRESH_ANNOTATION);
  }

  public List<RetrievedContainer> containersOrEmpty() {
    return container == null ? List.of() : container;
  }
}
