package io.crigate.interlink.node;

import io.crigate.interlink.wire.PodStatusReport;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A plugin's container statuses as the pod status Kubernetes shows: init containers first (one
 * running or waiting keeps the pod Pending), any container ended non-zero makes it Failed, all
 * ended zero Succeeded, one running Running. Unlike interLink's VK, the plugin's reason is kept.
 */
final class PodPhases {

  static final String PENDING = "Pending";
  static final String RUNNING = "Running";
  static final String SUCCEEDED = "Succeeded";
  static final String FAILED = "Failed";

  private PodPhases() {}

  static PodStatus of(Pod pod, PodStatusReport report, Instant now) {
    List<ContainerStatus> inits = nullSafe(report.initContainers());
    List<ContainerStatus> mains = nullSafe(report.containers());
    boolean initsDone = inits.stream().allMatch(c -> exitCode(c) != null && exitCode(c) == 0);
    boolean initFailed = inits.stream().anyMatch(c -> exitCode(c) != null && exitCode(c) != 0);
    boolean mainFailed = mains.stream().anyMatch(c -> exitCode(c) != null && exitCode(c) != 0);
    boolean allEnded = !mains.isEmpty() && mains.stream().allMatch(c -> exitCode(c) != null);
    boolean anyRunning = mains.stream().anyMatch(c -> c.getState() != null && c.getState().getRunning() != null);
    String phase;
    if (initFailed || mainFailed && allEnded) {
      phase = FAILED;
    } else if (!initsDone) {
      phase = PENDING;
    } else if (allEnded) {
      phase = mainFailed ? FAILED : SUCCEEDED;
    } else if (anyRunning) {
      phase = RUNNING;
    } else {
      phase = PENDING;
    }
    boolean ready = phase.equals(RUNNING) && mains.stream().allMatch(c -> Boolean.TRUE.equals(c.getReady()));
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    String started = pod.getStatus() != null && pod.getStatus().getStartTime() != null ? pod.getStatus().getStartTime() : time;
    List<PodCondition> conditions = new ArrayList<>();
    conditions.add(condition("PodScheduled", true, time, null));
    conditions.add(condition("Initialized", initsDone, time, initsDone ? null : "ContainersNotInitialized"));
    conditions.add(condition("ContainersReady", ready, time, ready ? null : phase.equals(RUNNING) ? "ContainersNotReady" : "PodCompleted"));
    conditions.add(condition("Ready", ready, time, ready ? null : phase.equals(RUNNING) ? "ContainersNotReady" : "PodCompleted"));
    return new PodStatusBuilder()
        .withPhase(phase)
        .withReason(reason(phase, mains, inits))
        .withStartTime(started)
        .withConditions(conditions)
        .withInitContainerStatuses(inits)
        .withContainerStatuses(mains)
        .withHostIP(pod.getStatus() == null ? null : pod.getStatus().getHostIP())
        .build();
  }

  /** Why a pod failed, from the first container that did, for {@code kubectl get pod}. */
  private static String reason(String phase, List<ContainerStatus> mains, List<ContainerStatus> inits) {
    if (!phase.equals(FAILED)) {
      return null;
    }
    List<ContainerStatus> all = new ArrayList<>(inits);
    all.addAll(mains);
    return all.stream().filter(c -> exitCode(c) != null && exitCode(c) != 0).findFirst()
        .map(c -> c.getState().getTerminated().getReason()).orElse(null);
  }

  /** A pod whose create the provider refused: Failed with the reason, never left Pending. */
  static PodStatus refused(Pod pod, String message, Instant now) {
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    return new PodStatusBuilder().withPhase(FAILED).withReason("ProviderFailed").withMessage(message)
        .withStartTime(time).withConditions(condition("PodScheduled", true, time, null),
            condition("Ready", false, time, "ProviderFailed"))
        .build();
  }

  static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return SUCCEEDED.equals(phase) || FAILED.equals(phase);
  }

  private static Integer exitCode(ContainerStatus status) {
    ContainerState state = status.getState();
    return state == null || state.getTerminated() == null ? null : state.getTerminated().getExitCode();
  }

  private static PodCondition condition(String type, boolean status, String time, String reason) {
    return new PodConditionBuilder().withType(type).withStatus(status ? "True" : "False")
        .withLastTransitionTime(time).withReason(reason).build();
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }
}
