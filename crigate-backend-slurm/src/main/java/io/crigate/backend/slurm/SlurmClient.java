package io.crigate.backend.slurm;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The few Slurm operations the backend needs, identical whichever way Slurm is reached (local
 * commands, SSH, slurmrestd). Every method throws {@link io.crigate.spi.CrigateException.Unavailable}
 * when slurmctld cannot be reached, never NotFound.
 */
interface SlurmClient extends AutoCloseable {

  /** Job names crigate submits all start with this, which lets one query cover every job. */
  String NAME_PREFIX = "crigate-";

  long submit(JobSpec job);

  /** Every crigate job slurmctld still holds, in ONE request. Exit codes may be missing. */
  List<JobState> queue();

  /** Final states of {@code jobIds} (exit codes filled), in a bounded number of requests. */
  Map<Long, JobState> finals(Collection<Long> jobIds);

  /** The job named {@code name}, still queued or in accounting, if Slurm ever accepted it. */
  Optional<Long> findByName(String name);

  /** Sends {@code signal} to the job's processes, or cancels the job when signal is empty. */
  void cancel(long jobId, String signal);

  /** Runs argv inside the job's allocation (srun --overlap). */
  CommandResult exec(long jobId, List<String> argv);

  /** Runs a helper command on the cluster (image pulls); empty when the transport cannot. */
  Optional<CommandResult> runOnCluster(List<String> argv);

  @Override
  void close();
}
