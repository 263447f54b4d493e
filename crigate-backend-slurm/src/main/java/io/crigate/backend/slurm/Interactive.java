package io.crigate.backend.slurm;

import io.crigate.spi.TerminalSize;
import java.io.InputStream;
import java.io.OutputStream;

/** A running interactive command (srun into a job) with its standard streams. */
interface Interactive {

  OutputStream stdin();

  InputStream stdout();

  /** Empty with a terminal: the terminal merges both outputs. */
  InputStream stderr();

  void resize(TerminalSize size);

  int waitFor() throws InterruptedException;

  /** Ends the command; srun passes the signal on to the step in the job. */
  void kill();

  /** Starts interactive commands where the Slurm client tools are. */
  @FunctionalInterface
  interface Launcher {
    Interactive start(java.util.List<String> argv, boolean tty, TerminalSize size);
  }
}
