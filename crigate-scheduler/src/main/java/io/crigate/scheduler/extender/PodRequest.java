package io.crigate.scheduler.extender;

import java.util.List;

/**
 * The fields of the pod being scheduled that the extender reads ({@link PodJson}); the rest of the
 * v1.Pod is skipped unparsed.
 *
 * @param namespace null when the pod names none
 * @param name null when the pod has none; such a pod is scored but not counted on a node
 * @param images init containers' then regular containers' images, as kube-scheduler's plugins see
 *     them; an init container's may be null (it is then scored without)
 */
record PodRequest(String namespace, String name, List<String> images) {

  /** {@code namespace/name} for logs and for counting the pod until its binding is seen. */
  String qualifiedName() {
    return name == null ? "<unnamed>" : namespace + "/" + name;
  }
}
