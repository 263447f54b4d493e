package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.LinuxPodSandboxStatus;
import io.crigate.api.cri.v1.Namespace;
import io.crigate.api.cri.v1.NamespaceMode;
import io.crigate.api.cri.v1.NamespaceOption;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxNetworkStatus;
import io.crigate.api.cri.v1.PodSandboxState;
import io.crigate.api.cri.v1.PodSandboxStatus;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the kubelet sees of pods and containers: stored records and the pollers' cached job states
 * mapped onto CRI states (see {@link JobOutcome} for why a queued job is RUNNING).
 */
final class CriStatus {

  private final Clusters clusters;
  private final Reconciler reconciler;
  private final LogPumps logs;

  CriStatus(Clusters clusters, Reconciler reconciler, LogPumps logs) {
    this.clusters = clusters;
    this.reconciler = reconciler;
    this.logs = logs;
  }

  PodSandboxStatus pod(Records.Sandbox sandbox) {
    PodSandboxConfig config = Inventory.podConfig(sandbox);
    return PodSandboxStatus.newBuilder()
        .setId(sandbox.id())
        .setMetadata(config.getMetadata())
        .setState(podState(sandbox))
        .setCreatedAt(sandbox.createdAt())
        .setNetwork(PodSandboxNetworkStatus.getDefaultInstance())
        .setLinux(LinuxPodSandboxStatus.newBuilder().setNamespaces(Namespace.newBuilder()
            .setOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE).setPid(NamespaceMode.NODE)
                .setIpc(NamespaceMode.NODE))))
        .putAllLabels(config.getLabelsMap())
        .putAllAnnotations(config.getAnnotationsMap())
        .build();
  }

  PodSandbox podListItem(Records.Sandbox sandbox) {
    PodSandboxConfig config = Inventory.podConfig(sandbox);
    return PodSandbox.newBuilder().setId(sandbox.id()).setMetadata(config.getMetadata()).setState(podState(sandbox))
        .setCreatedAt(sandbox.createdAt()).putAllLabels(config.getLabelsMap())
        .putAllAnnotations(config.getAnnotationsMap()).build();
  }

  private static PodSandboxState podState(Records.Sandbox sandbox) {
    return sandbox.ready() ? PodSandboxState.SANDBOX_READY : PodSandboxState.SANDBOX_NOTREADY;
  }

  /** ListContainers' entry: never fails for a cluster whose state is unknown (see {@link #container}). */
  Container containerListItem(Records.Container container) {
    ContainerStatus status = container(container, false);
    return Container.newBuilder().setId(container.id())
        .setPodSandboxId(container.sandboxId()).setMetadata(status.getMetadata()).setImage(status.getImage())
        .setImageRef(status.getImageRef()).setState(status.getState()).setCreatedAt(status.getCreatedAt())
        .putAllLabels(status.getLabelsMap()).putAllAnnotations(status.getAnnotationsMap()).build();
  }

  /**
   * @param strict whether a cluster whose state is unknown fails the call (ContainerStatus) or the
   *     job is reported as last known, running, with the reason in the message (ListContainers: one
   *     login's unreachable host or refused password, or a slurmctld outage, must not fail the
   *     kubelet's relist of the whole node, which would mark it NotReady)
   */
  ContainerStatus container(Records.Container container, boolean strict) {
    ContainerConfig config = Inventory.containerConfig(container);
    ContainerStatus.Builder status = ContainerStatus.newBuilder()
        .setId(container.id())
        .setMetadata(config.getMetadata())
        .setImage(config.getImage())
        .setImageRef(config.getImage().getImage())
        .setCreatedAt(container.createdAt())
        .putAllLabels(config.getLabelsMap())
        .putAllAnnotations(config.getAnnotationsMap())
        .setLogPath(logs.logPath(container).map(Path::toString).orElse(""));
    Records.Finish finish = container.finish();
    if (finish != null) {
      return status.setState(ContainerState.CONTAINER_EXITED).setStartedAt(finish.startedAt())
          .setFinishedAt(finish.finishedAt()).setExitCode(finish.exitCode()).setReason(finish.reason())
          .setMessage(finish.message()).build();
    }
    if (!container.started()) {
      return status.setState(reconciler.maybeSubmitted(container)
          ? ContainerState.CONTAINER_RUNNING : ContainerState.CONTAINER_CREATED).build();
    }
    status.setState(JobOutcome.liveState()).setStartedAt(container.startedAt());
    Optional<JobState> job;
    try {
      job = clusters.of(container.login()).poller().state(container.jobId());
    } catch (CrigateException.Unavailable | CrigateException.PermissionDenied unknown) {
      if (strict) {
        throw unknown;
      }
      return status.setMessage("slurm job %d: state unknown: %s".formatted(container.jobId(), unknown.getMessage()))
          .build();
    }
    job.ifPresentOrElse(
        state -> status.setReason(JobOutcome.liveReason(state)).setMessage(JobOutcome.liveMessage(state)),
        () -> status.setMessage("slurm job %d submitted".formatted(container.jobId())));
    return status.build();
  }

  /** The state of the container's job for metrics: Slurm's word, or NOT_SUBMITTED, SUBMITTED, ENDED, UNKNOWN. */
  String jobState(Records.Container container) {
    if (container.finish() != null) {
      return "ENDED";
    }
    if (!container.started()) {
      return "NOT_SUBMITTED";
    }
    try {
      return clusters.of(container.login()).poller().state(container.jobId()).map(JobState::state).orElse("SUBMITTED");
    } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
      return "UNKNOWN";
    }
  }
}
