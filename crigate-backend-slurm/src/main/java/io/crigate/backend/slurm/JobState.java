package io.crigate.backend.slurm;

import java.time.Instant;
import java.util.Set;

/**
 * One job as Slurm reports it.
 *
 * @param state Slurm's base state word (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...)
 * @param reason squeue's reason (Resources, Priority, None, ...)
 * @param exitCode the script's exit status, or null while unknown (squeue does not report it)
 * @param signal the signal that ended it, 0 if none, null while unknown
 * @param start when it started running, null while pending
 * @param end when it ended, null while it runs
 */
record JobState(long jobId, String name, String state, String reason, Integer exitCode, Integer signal,
    Instant start, Instant end) {

  private static final Set<String> TERMINAL = Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
      "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED");

  boolean terminal() {
    return TERMINAL.contains(state);
  }

  /** Terminal with its exit status known: nothing about this job will change any more. */
  boolean settled() {
    return terminal() && exitCode != null;
  }
}
