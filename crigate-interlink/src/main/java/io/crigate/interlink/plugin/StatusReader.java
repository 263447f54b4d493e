package io.crigate.interlink.plugin;

import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers {@code /status} from the backend's ContainerStatus, which for Slurm is served from the
 * poller's cache: however many pods are asked about, Slurm sees one {@code squeue} per poll interval.
 * Times are whole-second RFC 3339 (what Go's metav1.Time decodes); absent times are omitted, never "".
 */
final class StatusReader {

  /** kubelet's exit code for a container that could not be started (StartError). */
  static final int START_ERROR_EXIT_CODE = 128;
  static final String UNKNOWN_POD = "PodUnknown";

  private final Backend backend;

  StatusReader(Backend backend) {
    this.backend = backend;
  }

  PodStatusReport report(PodRecord pod) {
    List<ContainerStatus> inits = new ArrayList<>();
    List<ContainerStatus> mains = new ArrayList<>();
    boolean initPending = false;
    for (PodRecord.Entry entry : pod.containers()) {
      ContainerStatus status = status(pod, entry, initPending);
      if (entry.init()) {
        inits.add(status);
        initPending |= status.getState().getTerminated() == null || status.getState().getTerminated().getExitCode() != 0;
      } else {
        mains.add(status);
      }
    }
    return new PodStatusReport(pod.name(), pod.uid(), pod.namespace(), pod.sandboxId() == null ? "" : pod.sandboxId(),
        mains, inits);
  }

  /** The defined answer for a pod this plugin never created or already deleted (documented). */
  static PodStatusReport unknown(Pod pod) {
    var meta = pod.getMetadata();
    List<ContainerStatus> containers = new ArrayList<>();
    if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
      pod.getSpec().getContainers().forEach(c -> containers.add(new ContainerStatusBuilder().withName(c.getName())
          .withImage(c.getImage()).withImageID("").withReady(false).withRestartCount(0)
          .withState(new ContainerStateBuilder().withNewWaiting().withReason(UNKNOWN_POD)
              .withMessage("this plugin has no pod with uid " + meta.getUid()).endWaiting().build())
          .build()));
    }
    return new PodStatusReport(meta.getName(), meta.getUid(), PodTranslator.namespace(pod), "", containers, List.of());
  }

  private ContainerStatus status(PodRecord pod, PodRecord.Entry entry, boolean initPending) {
    ContainerStatusBuilder status = new ContainerStatusBuilder().withName(entry.name()).withImage(entry.image())
        .withImageID("").withRestartCount(0).withReady(false);
    PodRecord.Failure failure = entry.failure() != null ? entry.failure() : pod.failure();
    if (failure != null) {
      return status.withState(new ContainerStateBuilder().withNewTerminated().withExitCode(START_ERROR_EXIT_CODE)
          .withReason(failure.reason()).withMessage(failure.message()).endTerminated().build()).build();
    }
    if (entry.id() == null) {
      return status.withState(waiting("ContainerCreating", null)).build();
    }
    io.crigate.api.cri.v1.ContainerStatus cri;
    try {
      cri = backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(entry.id()).build()).getStatus();
    } catch (CrigateException.NotFound e) {
      return status.withContainerID(containerId(entry.id())).withState(new ContainerStateBuilder().withNewTerminated()
          .withExitCode(START_ERROR_EXIT_CODE).withReason("ContainerLost").withMessage(e.getMessage()).endTerminated()
          .build()).build();
    }
    status.withContainerID(containerId(entry.id()));
    return switch (cri.getState()) {
      case CONTAINER_CREATED -> status.withState(waiting(entry.init() || !initPending ? "ContainerCreating"
          : "PodInitializing", null)).build();
      case CONTAINER_RUNNING -> cri.getReason().isEmpty()
          ? status.withReady(true).withState(new ContainerStateBuilder().withNewRunning()
              .withStartedAt(time(cri.getStartedAt())).endRunning().build()).withStarted(true).build()
          // a queued Slurm job: Pending in Kubernetes, with the queue's reason in the message
          : status.withState(waiting(cri.getReason(), cri.getMessage())).build();
      case CONTAINER_EXITED -> status.withState(new ContainerStateBuilder().withNewTerminated()
          .withExitCode(cri.getExitCode()).withReason(cri.getReason().isEmpty() ? null : cri.getReason())
          .withMessage(cri.getMessage().isEmpty() ? null : cri.getMessage())
          .withStartedAt(time(cri.getStartedAt())).withFinishedAt(time(cri.getFinishedAt()))
          .withContainerID(containerId(entry.id())).endTerminated().build()).build();
      default -> status.withState(waiting("Unknown", cri.getMessage().isEmpty() ? null : cri.getMessage())).build();
    };
  }

  private static ContainerState waiting(String reason, String message) {
    return new ContainerStateBuilder().withNewWaiting().withReason(reason).withMessage(message).endWaiting().build();
  }

  private static String containerId(String id) {
    return "crigate://" + id;
  }

  /** CRI nanoseconds to metav1.Time's wire form; 0 (unknown) is omitted. */
  static String time(long nanos) {
    if (nanos <= 0) {
      return null;
    }
    return Instant.ofEpochSecond(nanos / 1_000_000_000L).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
