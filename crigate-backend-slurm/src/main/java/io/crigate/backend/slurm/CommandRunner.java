package io.crigate.backend.slurm;

import java.util.List;

/**
 * Runs one Slurm client command (sbatch, squeue, ...) where the cluster's tools are: here, or on a
 * login node over SSH. Arguments stay an argv list all the way, so no caller ever builds a shell
 * string. It also starts the interactive ones (srun into a job, for exec), wired to the caller's
 * streams instead of collected.
 */
interface CommandRunner extends Interactive.Launcher, AutoCloseable {

  /**
   * @throws io.crigate.spi.CrigateException.Unavailable when the command could not be run at all
   */
  CommandResult run(List<String> argv, byte[] stdin);

  @Override
  void close();
}
