package io.crigate.backend.slurm;

/** What the backend persists, one JSON value per key in its {@link io.crigate.spi.DurableStore}. */
final class Records {

  private Records() {}

  /** A pod: its working directory is {@code workDir/<id>}. Times are nanoseconds since the epoch. */
  record Sandbox(String id, byte[] config, long createdAt, boolean ready) {
    Sandbox notReady() {
      return new Sandbox(id, config, createdAt, false);
    }
  }

  /**
   * A container and its job.
   *
   * @param jobId the Slurm job id, 0 before submission
   * @param submitting set just before sbatch and cleared once the job id is stored: if crigate
   *     dies in between, the job is found again by name instead of being submitted twice
   * @param finish the job's end, null while it has not ended
   * @param login the {@link ClusterLogin#key()} the job runs under, null for the backend's own cluster
   */
  record Container(String id, String sandboxId, byte[] config, long createdAt, long jobId, boolean submitting,
      long startedAt, boolean stopRequested, Finish finish, String login) {

    Container submitting(boolean value) {
      return new Container(id, sandboxId, config, createdAt, jobId, value, startedAt, stopRequested, finish, login);
    }

    Container submitted(long job, long at) {
      return new Container(id, sandboxId, config, createdAt, job, false, at, stopRequested, finish, login);
    }

    Container stopping() {
      return new Container(id, sandboxId, config, createdAt, jobId, submitting, startedAt, true, finish, login);
    }

    Container finished(Finish end) {
      return new Container(id, sandboxId, config, createdAt, jobId, submitting, startedAt, stopRequested, end, login);
    }

    boolean started() {
      return jobId != 0;
    }
  }

  /** How a job ended, in the kubelet's words. */
  record Finish(String reason, int exitCode, String message, long startedAt, long finishedAt) {}

  /** A container-supplied cluster login; the password is stored only as sealed by {@link LoginVault}. */
  record Login(String key, String host, int port, String user, byte[] sealedPassword) {}

  /** An image the runner fetched onto the cluster. */
  record Image(String ref, long pulledAt) {}
}
