package io.crigate.backend.slurm;

import java.nio.file.Files;
import java.nio.file.Path;
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
  private final SandboxDirectory dirs;
  private final Map<JobKey, String> containerByJob = new ConcurrentHashMap<>();

  JobEnds(Inventory inventory, SandboxDirectory dirs) {
    this.inventory = inventory;
    this.dirs = dirs;
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
          inventory.saveLater(container.finished(withOutputHint(container,
              JobOutcome.finish(job, container.stopRequested(), container.startedAt(), inventory.nowNanos())))));
    }
  }

  /**
   * slurmd opens a job's output before its script runs; a failed job that left none never started
   * its script, and Slurm's own message ("FAILED, exit 15:53") does not say why. The usual cause is
   * a directory the job's user cannot write, which the kubelet's event should name.
   */
  private Records.Finish withOutputHint(Records.Container container, Records.Finish finish) {
    Path stdout = dirs.stdout(container.sandboxId(), container.id());
    if (!finish.reason().equals(JobOutcome.ERROR) || Files.exists(stdout)) {
      return finish;
    }
    return new Records.Finish(finish.reason(), finish.exitCode(),
        finish.message() + "; it ended before writing %s: slurmd could not open it as the job's user, or the node failed first"
            .formatted(stdout), finish.startedAt(), finish.finishedAt());
  }
}
