package io.crigate.scheduler.extender;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.stream.Stream;

/**
 * One extender request: the pod being scheduled, its CPU request as kube-scheduler counts it
 * ({@link PodCpu}, read once when the request is parsed), and its candidate nodes.
 */
record ExtenderArgs(Pod pod, long cpuMillis, CandidateNodes nodes) {

  /** Images of init containers then regular containers, as kube-scheduler's plugins see them. */
  List<String> images() {
    var spec = pod.getSpec();
    return Stream.concat(spec.getInitContainers().stream(), spec.getContainers().stream())
        .map(Container::getImage)
        .toList();
  }

  String podName() {
    var meta = pod.getMetadata();
    return meta == null ? "<unnamed>" : meta.getNamespace() + "/" + meta.getName();
  }
}
