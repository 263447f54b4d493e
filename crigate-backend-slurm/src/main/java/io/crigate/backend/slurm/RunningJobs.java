package io.crigate.backend.slurm;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ExecSyncRequest;
import io.crigate.api.cri.v1.ExecSyncResponse;
import io.crigate.spi.CrigateException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Commands in a running container's job: ExecSync, and the jobs a streaming exec, attach or port forward joins. */
final class RunningJobs {

  private final Inventory inventory;
  private final Clusters clusters;
  private final ImageRunner runner;
  private final SandboxDirectory dirs;

  RunningJobs(Inventory inventory, Clusters clusters, ImageRunner runner, SandboxDirectory dirs) {
    this.inventory = inventory;
    this.clusters = clusters;
    this.runner = runner;
    this.dirs = dirs;
  }

  ExecSyncResponse execSync(ExecSyncRequest request) {
    Records.Container container = running(request.getContainerId());
    List<String> argv = runner.exec(image(container), container.id(), request.getCmdList());
    if (request.getTimeout() > 0) {
      // coreutils timeout on the compute node: the command ends there, not only our wait for it;
      // it exits 124 like containerd's timed-out exec probes fail, and KILL follows 2 s after TERM.
      argv = Stream.concat(Stream.of("timeout", "--kill-after=2", request.getTimeout() + "s"), argv.stream()).toList();
    }
    CommandResult result = clusters.of(container.login()).client().exec(container.jobId(), argv);
    return ExecSyncResponse.newBuilder().setStdout(ByteString.copyFrom(result.stdout()))
        .setStderr(ByteString.copyFrom(result.stderr())).setExitCode(result.exitCode()).build();
  }

  /** The running job of a container, for a streaming session; a job still queued has nowhere to run one. */
  RunningJob runningJob(String containerId) {
    Records.Container container = running(containerId);
    JobPoller poller = clusters.of(container.login()).poller();
    Optional<JobState> pending = pending(poller, container);
    if (pending.isPresent()) {
      // The cache is up to a poll interval old: a job that has just started (its server already
      // listening, say) is asked about once more before it is refused.
      poller.pollNow();
      pending = pending(poller, container);
    }
    pending.ifPresent(job -> {
      throw new CrigateException.FailedPrecondition("container %s: slurm job %d is still PENDING (%s): it has no "
          .formatted(container.id(), job.jobId(), job.reason()) + "allocation to run in yet");
    });
    String image = image(container);
    Interactive.Launcher launcher = clusters.of(container.login()).client().interactive().orElse(null);
    return new RunningJob(container.id(), container.jobId(), container.login(), launcher,
        cmd -> runner.exec(image, container.id(), cmd), dirs.container(container.sandboxId(), container.id()),
        () -> inventory.ended(container.id()));
  }

  /** The jobs of a pod's containers that run now, oldest container first; NotFound for an unknown pod. */
  List<RunningJob> runningJobsOf(String sandboxId) {
    inventory.sandbox(sandboxId);
    return inventory.containersOf(sandboxId).stream()
        .filter(container -> container.started() && container.finish() == null)
        .sorted(Comparator.comparingLong(Records.Container::createdAt))
        .flatMap(container -> {
          try {
            return Stream.of(runningJob(container.id()));
          } catch (CrigateException.FailedPrecondition stillPending) {
            return Stream.empty();
          }
        })
        .toList();
  }

  private static Optional<JobState> pending(JobPoller poller, Records.Container container) {
    return poller.state(container.jobId()).filter(job -> job.state().equals("PENDING"));
  }

  private Records.Container running(String id) {
    Records.Container container = inventory.container(id);
    if (!container.started() || container.finish() != null) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    return container;
  }

  private static String image(Records.Container container) {
    return Inventory.containerConfig(container).getImage().getImage();
  }
}
