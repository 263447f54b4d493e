package io.crigate.backend.slurm;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * One job as Slurm reports it.
 *
 * @param state Slurm's base state word (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...)
 * @param reason squeue's reason (Resources, Priority, None, ...)
 * @param exit how the script ended; empty while unknown (it runs, or squeue did not report it)
 * @param start when it started running; empty while pending
 * @param end when it ended; empty while it runs
 */
record JobState(long jobId, String name, String state, String reason, Optional<Exit> exit, Optional<Instant> start,
    Optional<Instant> end) {

  /** The script's exit status, and the signal that ended it (0 if none). */
  record Exit(int code, int signal) {
    /** From a raw wait status as squeue and slurmrestd print it: exit code in the high byte, signal in the low bits. */
    static Exit ofWaitStatus(int raw) {
      return new Exit((raw >> 8) & 0xff, raw & 0x7f);
    }
  }

  private static final Set<String> TERMINAL = Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
      "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED");

  boolean terminal() {
    return TERMINAL.contains(state);
  }

  /** Terminal with its exit status known: nothing about this job will change any more. */
  boolean settled() {
    return terminal() && exit.isPresent();
  }

  JobState withExit(Exit known) {
    return new JobState(jobId, name, state, reason, Optional.of(known), start, end);
  }
}
