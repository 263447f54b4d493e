package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Following a started container's job: its poller tracks the job, its end is recorded, its output is logged. */
final class JobFollowing {

  private static final Logger LOG = LoggerFactory.getLogger(JobFollowing.class);

  private final Clusters clusters;
  private final JobEnds ends;
  private final LogPumps logs;

  JobFollowing(Clusters clusters, JobEnds ends, LogPumps logs) {
    this.clusters = clusters;
    this.ends = ends;
    this.logs = logs;
  }

  /** A job just submitted, or adopted after an interrupted submission. */
  void follow(Records.Container started) {
    ends.bind(started);
    clusters.of(started.login()).poller().track(started.jobId());
    logs.start(started);
  }

  /** After a restart: jobs still running are tracked again, logs not yet complete continue. */
  void resume(Records.Container started) {
    ends.bind(started);
    if (started.finish() == null) {
      try {
        clusters.of(started.login()).poller().track(started.jobId());
      } catch (CrigateException.Unavailable e) {
        LOG.warn("container {}: job {} is not followed: {}", started.id(), started.jobId(), e.getMessage());
      }
    }
    logs.resume(started);
  }

  /** The container is being removed: nothing about its job is watched any more. */
  void unfollow(Records.Container container) {
    logs.stop(container.id());
    if (container.started()) {
      clusters.of(container.login()).poller().untrack(container.jobId());
      ends.unbind(container);
    }
  }
}
