package io.crigate.backend.slurm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which container each followed job belongs to, and recording a job's end on its container when
 * a poller sees it settle.
 */
final class JobEnds {

  /** Job ids are unique per cluster only, and a backend may talk to several (container logins). */
  private record JobKey(String cluster, long jobId) {}

  private final Inventory inventory;
  private final Map<JobKey, String> containerByJob = new ConcurrentHashMap<>();

  JobEnds(Inventory inventory) {
    this.inventory = inventory;
  }

  void bind(Records.Container started) {
    containerByJob.put(key(started), started.id());
  }

  void unbind(Records.Container started) {
    containerByJob.remove(key(started));
  }

  private static JobKey key(Records.Container started) {
    return new JobKey(Inventory.clusterKey(started), started.jobId());
  }

  /** A poller saw {@code job} settle on {@code cluster}: its container has exited. */
  void settled(String cluster, JobState job) {
    String id = containerByJob.get(new JobKey(cluster, job.jobId()));
    if (id == null) {
      return;
    }
    try (KeyedLocks.Held held = inventory.hold(id)) {
      inventory.findContainer(id).filter(container -> container.finish() == null).ifPresent(container ->
          inventory.saveLater(container.finished(
              JobOutcome.finish(job, container.stopRequested(), container.startedAt(), inventory.nowNanos()))));
    }
  }
}
