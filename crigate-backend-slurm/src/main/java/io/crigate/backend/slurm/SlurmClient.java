package io.crigate.backend.slurm;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The few Slurm operations the backend needs, identical whichever way Slurm is reached (local
 * commands, SSH, slurmrestd). Every method throws {@link io.crigate.spi.CrigateException.PermissionDenied}
 * when the login or token is refused, and {@link io.crigate.spi.CrigateException.Unavailable}
 * when slurmctld cannot be reached, never NotFound.
 */
interface SlurmClient extends AutoCloseable {

  /** Job names crigate submits all start with this, which lets one query cover every job. */
  String NAME_PREFIX = "crigate-";

  long submit(JobSpec job);

  /**
   * The states of {@code jobIds} that slurmctld still holds, exit codes of ended ones included, in
   * ONE request. slurmctld answers with every job of the user (ended ones for MinJobAge), so the
   * others are skipped before they are parsed: a poll's cost follows the tracked jobs, not the
   * cluster's recent history.
   */
  List<JobState> queue(Set<Long> jobIds);

  /**
   * Final states of jobs slurmctld no longer lists (older than MinJobAge, e.g. after crigate was
   * down), from accounting, in one request. Jobs accounting does not know yet are left out.
   */
  Map<Long, JobState> finals(Collection<Long> jobIds);

  /** The jobs with these names, still queued or in accounting, for the names Slurm ever accepted. */
  Map<String, Long> findByNames(Collection<String> names);

  /** Sends {@code signal} to the jobs' processes, or cancels the jobs when signal is empty. */
  void cancel(List<Long> jobIds, String signal);

  /** Runs argv inside the job's allocation (srun --overlap). */
  CommandResult exec(long jobId, List<String> argv);

  /** Runs a helper command on the cluster (image pulls); empty when the transport cannot. */
  Optional<CommandResult> runOnCluster(List<String> argv);

  /** Starts interactive srun where this client reaches the cluster (exec with a terminal); empty when the transport cannot. */
  Optional<Interactive.Launcher> interactive();

  @Override
  void close();
}
