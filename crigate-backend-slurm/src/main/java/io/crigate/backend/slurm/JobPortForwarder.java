package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.PortForwarder;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * PortForward into a pod's Slurm jobs. A job's ports are on its compute node, which crigate's host
 * need not reach, so each forwarded connection is a relay step in the job ({@link PortRelay}). It
 * says {@code connected} first, so the client's bytes go only to a relay whose connection is up, and
 * a pod of several jobs is tried job by job until one accepts. Once one has, relays for the next
 * connections to the same job and port are started ahead ({@link StandbyRelays}).
 */
final class JobPortForwarder implements PortForwarder, AutoCloseable {

  private record PodPort(String podSandboxId, int port) {}

  private final Function<String, List<RunningJob>> podJobs;
  private final StandbyRelays standbys;
  /** Connections being forwarded per pod and port, from the client's request on: a burst's size. */
  private final Map<PodPort, Integer> asking = new ConcurrentHashMap<>();

  /**
   * @param podJobs the running jobs of a pod, oldest first (NotFound for an unknown pod)
   * @param standby how long a relay started ahead waits for its connection; zero starts none ahead
   */
  JobPortForwarder(Function<String, List<RunningJob>> podJobs, Duration standby) {
    this.podJobs = podJobs;
    this.standbys = new StandbyRelays(standby);
  }

  /** What can be checked before a URL is handed out: a running job, reachable with srun. */
  void check(PortForwardRequest request) {
    List<RunningJob> jobs = podJobs.apply(request.getPodSandboxId());
    if (jobs.isEmpty()) {
      throw new CrigateException.FailedPrecondition("pod %s has no running container whose job a port could be "
          .formatted(request.getPodSandboxId()) + "forwarded into");
    }
    if (jobs.stream().allMatch(job -> job.launcher() == null)) {
      throw new CrigateException.Unimplemented(("PortForward into slurm jobs runs srun, on crigate's host (transport "
          + "local) or a login node (transport ssh, or a container's own cluster login); pod %s's jobs are reached "
          + "through slurmrestd").formatted(request.getPodSandboxId()));
    }
  }

  @Override
  public void forward(String podSandboxId, int port, InputStream fromClient, OutputStream toClient) {
    List<String> refusals = new ArrayList<>();
    PodPort asked = new PodPort(podSandboxId, port);
    asking.merge(asked, 1, Integer::sum);
    try {
      for (RunningJob job : standbysFirst(podJobs.apply(podSandboxId), port)) {
        if (job.launcher() == null) {
          refusals.add("container %s: its job is reached through slurmrestd, which cannot run a relay"
              .formatted(job.containerId()));
          continue;
        }
        Optional<PortRelay> connected = connect(job, port, refusals);
        if (connected.isPresent()) {
          Runnable ended = standbys.connected(job, port, asking.getOrDefault(asked, 1));
          try {
            connected.get().join(fromClient, toClient);
          } finally {
            ended.run();
          }
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("port forward ended: the client went away");
    } finally {
      asking.computeIfPresent(asked, (key, n) -> n == 1 ? null : n - 1);
    }
    if (refusals.isEmpty()) {
      throw new CrigateException.FailedPrecondition("pod %s has no running container".formatted(podSandboxId));
    }
    throw new CrigateException.Unavailable("nothing accepted a connection to port %d: %s"
        .formatted(port, String.join("; ", refusals)));
  }

  /** The jobs whose relay to the port waits (the job that took the last connection) first, then oldest first. */
  private List<RunningJob> standbysFirst(List<RunningJob> jobs, int port) {
    return jobs.stream().sorted(Comparator.comparing(job -> !standbys.waits(job, port))).toList();
  }

  /**
   * A connected relay in the job: the one waiting there if it connects, else a new one (a waiting one
   * may have died with its SSH connection). Adds why not to {@code refusals}.
   */
  private Optional<PortRelay> connect(RunningJob job, int port, List<String> refusals) throws InterruptedException {
    Optional<PortRelay> waiting = standbys.take(job, port);
    if (waiting.isPresent() && waiting.get().connect() == null) {
      return waiting;
    }
    PortRelay relay = PortRelay.start(job, port);
    String refused = relay.connect();
    if (refused == null) {
      return Optional.of(relay);
    }
    refusals.add("container %s (job %d): %s".formatted(job.containerId(), job.jobId(), refused));
    return Optional.empty();
  }

  /** Relays started ahead and waiting, for the metrics. */
  int relaysWaiting() {
    return standbys.count();
  }

  /** Dismisses the relays started ahead. */
  @Override
  public void close() {
    standbys.close();
  }
}
