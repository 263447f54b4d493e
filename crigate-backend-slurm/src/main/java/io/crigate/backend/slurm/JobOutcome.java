package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerState;
import java.time.Instant;

/**
 * Maps Slurm job states onto CRI container states. A queued (PENDING) job is reported RUNNING:
 * the kubelet restarts or recreates a container it sees in CREATED state, so reporting CREATED
 * for a job that merely waits in the queue would submit it again and again. The queue state is
 * carried in reason and message instead.
 */
final class JobOutcome {

  static final String COMPLETED = "Completed";
  static final String ERROR = "Error";
  static final String CANCELLED = "Cancelled";
  static final String TIME_LIMIT = "TimeLimit";
  static final String OOM_KILLED = "OOMKilled";
  /** A submission whose job Slurm no longer knows: it may or may not have run. */
  static final String UNKNOWN = "Unknown";
  /** containerd's exit code for a container whose end it could not learn. */
  static final int UNKNOWN_EXIT_CODE = 255;

  private JobOutcome() {}

  /** A live job: CONTAINER_RUNNING whether queued or running, with Slurm's view in the message. */
  static ContainerState liveState() {
    return ContainerState.CONTAINER_RUNNING;
  }

  static String liveReason(JobState job) {
    return job.state().equals("PENDING") ? "SlurmPending" : "";
  }

  static String liveMessage(JobState job) {
    return "slurm job %d %s%s".formatted(job.jobId(), job.state(),
        job.reason() == null || job.reason().equals("None") ? "" : " (" + job.reason() + ")");
  }

  /** A settled job as the kubelet should see its end; a job we stopped counts as cancelled. */
  static Records.Finish finish(JobState job, boolean stopRequested, long submittedAt, long nowNanos) {
    JobState.Exit exit = job.exit().orElseThrow(() -> new IllegalArgumentException("job " + job.jobId() + " has not settled"));
    int signal = exit.signal();
    int code = signal > 0 ? 128 + signal : exit.code();
    String reason = switch (job.state()) {
      case "COMPLETED" -> code == 0 ? COMPLETED : ERROR;
      case "CANCELLED" -> CANCELLED;
      case "TIMEOUT" -> TIME_LIMIT;
      case "OUT_OF_MEMORY" -> OOM_KILLED;
      default -> stopRequested && signal > 0 ? CANCELLED : ERROR;
    };
    if (code == 0 && !reason.equals(COMPLETED)) {
      // A job that did not complete must not look successful to restartPolicy: OnFailure.
      code = switch (reason) {
        case OOM_KILLED -> 137;
        case CANCELLED, TIME_LIMIT -> 143;
        default -> 1;
      };
    }
    long started = job.start().map(JobOutcome::nanos).orElse(submittedAt);
    long finished = job.end().map(JobOutcome::nanos).orElse(nowNanos);
    String message = "slurm job %d %s, exit %d:%d".formatted(job.jobId(), job.state(), exit.code(), signal);
    return new Records.Finish(reason, code, message, started, Math.max(finished, started));
  }

  static long nanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }
}
