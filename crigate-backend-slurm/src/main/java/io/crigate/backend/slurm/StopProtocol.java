package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stopping a container's job: SIGTERM to every process of the job, then after the grace period
 * SIGKILL and scancel; a queued job is cancelled at once. Each stop returns once the job has
 * settled, so the kubelet never sees a container running after stopping it.
 */
final class StopProtocol {

  private static final Logger LOG = LoggerFactory.getLogger(StopProtocol.class);
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(250);

  private final Inventory inventory;
  private final Clusters clusters;
  private final Reconciler reconciler;
  private final ImageRunner runner;
  private final Clock clock;

  StopProtocol(Inventory inventory, Clusters clusters, Reconciler reconciler, ImageRunner runner) {
    this.inventory = inventory;
    this.clusters = clusters;
    this.reconciler = reconciler;
    this.runner = runner;
    this.clock = inventory.clock();
  }

  /** Stops one container's job; {@code timeoutSeconds} of 0 or less cancels it at once. */
  void stop(String id, long timeoutSeconds) {
    Records.Container container = reconciler.reconcile(id);
    if (!container.started() || container.finish() != null) {
      return;
    }
    container = inventory.save(container.stopping());
    long jobId = container.jobId();
    Clusters.Cluster cluster = clusters.of(container.login());
    boolean queued = cluster.poller().state(jobId).map(job -> job.state().equals("PENDING")).orElse(false);
    if (timeoutSeconds <= 0 || queued) {
      removeRunnerContainer(cluster, container);
      cluster.client().cancel(List.of(jobId), "");
    } else {
      cluster.client().cancel(List.of(jobId), "TERM");
      if (!awaitFinish(container, Duration.ofSeconds(timeoutSeconds))) {
        removeRunnerContainer(cluster, container);
        cluster.client().cancel(List.of(jobId), "KILL");
        cluster.client().cancel(List.of(jobId), "");
      }
    }
    awaitSettled(container);
  }

  /** One scancel per cluster for all of the pod's jobs, then one wait: a pod of 200 jobs must not take 200 round trips. */
  void stopAll(String sandboxId) {
    List<Records.Container> live = inventory.containersOf(sandboxId).stream().map(c -> reconciler.reconcile(c.id()))
        .filter(c -> c.started() && c.finish() == null).map(c -> inventory.save(c.stopping())).toList();
    live.forEach(c -> removeRunnerContainer(clusters.of(c.login()), c));
    live.stream().collect(Collectors.groupingBy(Inventory::clusterKey)).values().forEach(sameCluster ->
        clusters.of(sameCluster.getFirst().login()).client()
            .cancel(sameCluster.stream().map(Records.Container::jobId).toList(), ""));
    live.forEach(this::awaitSettled);
  }

  /**
   * Removes a running job's runner container from inside its allocation, where the runner lives
   * (see {@link ImageRunner#forceRemove}). Best effort: the scancel that follows ends the job anyway,
   * and a job that is still queued has no container yet (srun would wait for its allocation).
   */
  private void removeRunnerContainer(Clusters.Cluster cluster, Records.Container container) {
    List<String> argv = runner.forceRemove(container.id());
    if (argv.isEmpty()
        || !cluster.poller().state(container.jobId()).map(job -> job.state().equals("RUNNING")).orElse(false)) {
      return;
    }
    try {
      CommandResult result = cluster.client().exec(container.jobId(), argv);
      if (result.exitCode() != 0) {
        LOG.warn("container {}: {} exited {}: {}", container.id(), argv.getFirst(), result.exitCode(), result.err());
      }
    } catch (CrigateException e) {
      LOG.warn("container {}: could not remove its {} container: {}", container.id(), argv.getFirst(), e.getMessage());
    }
  }

  private void awaitSettled(Records.Container container) {
    if (!awaitFinish(container, SETTLE)) {
      throw new CrigateException.Unavailable("slurm job %d of container %s did not end within %s after scancel"
          .formatted(container.jobId(), container.id(), SETTLE));
    }
  }

  private boolean awaitFinish(Records.Container container, Duration limit) {
    String id = container.id();
    JobPoller poller = clusters.of(container.login()).poller();
    Instant now = clock.instant();
    // A StopContainer timeout may be any int64 of seconds: beyond the clock's range it means "never".
    Instant deadline = limit.compareTo(Duration.between(now, Instant.MAX)) >= 0 ? Instant.MAX : now.plus(limit);
    while (!inventory.ended(id)) {
      if (!clock.instant().isBefore(deadline)) {
        return false;
      }
      poller.pollNow();
      // Sleep only if this very poll did not settle it: a stop must not cost a full pause per job.
      if (!inventory.ended(id)) {
        pause(id);
      }
    }
    return true;
  }

  private static void pause(String id) {
    try {
      Thread.sleep(POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while stopping container " + id, e);
    }
  }
}
