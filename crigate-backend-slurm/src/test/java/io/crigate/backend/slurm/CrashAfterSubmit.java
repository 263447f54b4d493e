package io.crigate.backend.slurm;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A real Slurm client through which crigate "dies" right after every accepted sbatch. */
record CrashAfterSubmit(SlurmClient slurm) implements SlurmClient {

  @Override
  public long submit(JobSpec job) {
    slurm.submit(job);
    throw new SimulatedCrash();
  }

  @Override
  public List<JobState> queue(Set<Long> jobIds) {
    return slurm.queue(jobIds);
  }

  @Override
  public Map<Long, JobState> finals(Collection<Long> jobIds) {
    return slurm.finals(jobIds);
  }

  @Override
  public Map<String, Long> findByNames(Collection<String> names) {
    return slurm.findByNames(names);
  }

  @Override
  public void cancel(List<Long> jobIds, String signal) {
    slurm.cancel(jobIds, signal);
  }

  @Override
  public CommandResult exec(long jobId, List<String> argv) {
    return slurm.exec(jobId, argv);
  }

  @Override
  public Optional<CommandResult> runOnCluster(List<String> argv) {
    return slurm.runOnCluster(argv);
  }

  @Override
  public Optional<Interactive.Launcher> interactive() {
    return slurm.interactive();
  }

  @Override
  public void close() {
    slurm.close();
  }
}
