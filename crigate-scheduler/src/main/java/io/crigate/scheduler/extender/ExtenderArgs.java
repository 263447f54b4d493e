package io.crigate.scheduler.extender;

import java.util.List;

/**
 * One extender request: what the score reads of the pod being scheduled, its CPU request as
 * kube-scheduler counts it ({@link PodCpu}, read once when the request is parsed), and its
 * candidate nodes.
 */
record ExtenderArgs(PodRequest pod, long cpuMillis, CandidateNodes nodes) {

  /** Images of init containers then regular containers, as kube-scheduler's plugins see them. */
  List<String> images() {
    return pod.images();
  }

  String podName() {
    return pod.qualifiedName();
  }
}
