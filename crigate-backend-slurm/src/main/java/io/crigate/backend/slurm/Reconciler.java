package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles submissions that a crash or a lost connection interrupted, by looking the job up by its
 * name: a job Slurm accepted is adopted, never submitted twice; a job it never saw leaves the
 * container unstarted; a job it no longer knows ends the container with reason Unknown.
 */
final class Reconciler {

  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

  private final Inventory inventory;
  private final Clusters clusters;
  private final JobFollowing following;
  /**
   * Containers without a stored job id that may nevertheless have one: after a restart every
   * unstarted container is one (the crash may have hit between sbatch and storing the id; records
   * of older versions carry no submitting marker). Cleared by looking the job up by name.
   */
  private final Set<String> unreconciled = ConcurrentHashMap.newKeySet();

  Reconciler(Inventory inventory, Clusters clusters, JobFollowing following) {
    this.inventory = inventory;
    this.clusters = clusters;
    this.following = following;
  }

  /**
   * After a restart: follow the jobs of started containers again, and settle every unstarted
   * one's possible submission in the background, one batched lookup per cluster.
   */
  void resumeAll() {
    for (Records.Container container : inventory.containers()) {
      if (container.started()) {
        following.resume(container);
      } else {
        unreconciled.add(container.id());
      }
    }
    if (!unreconciled.isEmpty()) {
      Thread.ofVirtual().name("slurm-reconcile").start(this::reconcileAll);
    }
  }

  /** One lookup by job name per cluster for every container a restart left without a job id. */
  void reconcileAll() {
    Map<String, List<String>> idsByCluster = unreconciled.stream().map(inventory::findContainer)
        .flatMap(Optional::stream)
        .collect(Collectors.groupingBy(Inventory::clusterKey,
            Collectors.mapping(Records.Container::id, Collectors.toList())));
    idsByCluster.forEach((cluster, ids) -> {
      try {
        Map<String, Long> jobs = clusters.of(cluster).client()
            .findByNames(ids.stream().map(id -> SlurmClient.NAME_PREFIX + id).toList());
        for (String id : ids) {
          try (KeyedLocks.Held held = inventory.hold(id)) {
            inventory.findContainer(id).filter(container -> unreconciled.remove(id))
                .ifPresent(container -> settle(container, jobs));
          }
        }
      } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
        LOG.warn("{} submissions on {} not reconciled yet, each is retried on its next use: {}", ids.size(), cluster,
            e.getMessage());
      }
    });
  }

  /** Whether the container, not started as far as its record says, may have a job in Slurm. */
  boolean maybeSubmitted(Records.Container container) {
    return container.submitting() || unreconciled.contains(container.id());
  }

  /** The container, with an interrupted submission settled first if it has one. */
  Records.Container reconcile(String id) {
    try (KeyedLocks.Held held = inventory.hold(id)) {
      Records.Container container = inventory.container(id);
      if (container.started() || !maybeSubmitted(container)) {
        return container;
      }
      Records.Container settled = settle(container,
          clusters.of(container.login()).client().findByNames(List.of(SlurmClient.NAME_PREFIX + id)));
      unreconciled.remove(id);
      return settled;
    }
  }

  /**
   * Settles a possibly interrupted submission with what a lookup by job name found. A container
   * marked as submitting whose job Slurm does not know may have run already (and been purged): it
   * is reported exited with reason Unknown, never submitted again. One without the marker never
   * reached sbatch.
   */
  private Records.Container settle(Records.Container container, Map<String, Long> jobsByName) {
    String jobName = SlurmClient.NAME_PREFIX + container.id();
    Long job = jobsByName.get(jobName);
    if (job == null) {
      if (!container.submitting()) {
        return container;
      }
      LOG.warn("container {}: sbatch was called but Slurm knows no job {}; reported as exited, reason {}",
          container.id(), jobName, JobOutcome.UNKNOWN);
      long now = inventory.nowNanos();
      return inventory.save(container.submitting(false).finished(new Records.Finish(JobOutcome.UNKNOWN,
          JobOutcome.UNKNOWN_EXIT_CODE, "sbatch was called, but Slurm knows no job named %s: it may have run and "
              .formatted(jobName) + "been purged from accounting, so it is not submitted again", now, now)));
    }
    LOG.info("container {}: adopted slurm job {} submitted before an interruption", container.id(), job);
    Records.Container adopted = inventory.save(container.submitted(job, inventory.nowNanos()));
    following.follow(adopted);
    return adopted;
  }
}
