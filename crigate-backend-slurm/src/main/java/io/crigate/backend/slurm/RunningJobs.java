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
    JobPoller poller = poller(container);
    if (pending(container).isPresent()) {
      // The cache is up to a poll interval old: a job that has just started (its server already
      // listening, say) is asked about once more before it is refused.
      poller.pollNow();
    }
    pending(container).ifPresent(job -> {
      throw new CrigateException.FailedPrecondition("container %s: slurm job %d is still PENDING (%s): it has no "
          .formatted(container.id(), job.jobId(), job.reason()) + "allocation to run in yet");
    });
    return joinable(container);
  }

  /**
   * The jobs of a pod's containers that run now, oldest container first; NotFound for an unknown
   * pod. Those the cache says are queued are asked about once more, as for one container, with one
   * poll for all of them: a port forward asks this for every connection.
   */
  List<RunningJob> runningJobsOf(String sandboxId) {
    inventory.sandbox(sandboxId);
    List<Records.Container> started = inventory.containersOf(sandboxId).stream().filter(RunningJobs::isRunning)
        .sorted(Comparator.comparingLong(Records.Container::createdAt)).toList();
    started.stream().filter(container -> pending(container).isPresent()).map(this::poller).distinct()
        .forEach(JobPoller::pollNow);
    return started.stream().filter(container -> pending(container).isEmpty()).map(this::joinable).toList();
  }

  /** What a streaming session needs of a container whose job runs. */
  private RunningJob joinable(Records.Container container) {
    String image = image(container);
    Interactive.Launcher launcher = clusters.of(container.login()).client().interactive().orElse(null);
    return new RunningJob(container.id(), container.jobId(), container.login(), launcher,
        cmd -> runner.exec(image, container.id(), cmd), dirs.container(container.sandboxId(), container.id()),
        () -> inventory.ended(container.id()));
  }

  private JobPoller poller(Records.Container container) {
    return clusters.of(container.login()).poller();
  }

  private Optional<JobState> pending(Records.Container container) {
    return poller(container).state(container.jobId()).filter(job -> job.state().equals("PENDING"));
  }

  private static boolean isRunning(Records.Container container) {
    return container.started() && container.finish() == null;
  }

  private Records.Container running(String id) {
    Records.Container container = inventory.container(id);
    if (!isRunning(container)) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    return container;
  }

  private static String image(Records.Container container) {
    return Inventory.containerConfig(container).getImage().getImage();
  }
}
