package io.crigate.backend.slurm;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import com.pty4j.WinSize;
import io.crigate.spi.CrigateException;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An interactive command on this host. With a terminal it runs on a pseudo-terminal (pty4j):
 * {@code srun --pty} refuses to allocate the job's terminal unless its own stdin is one, and it
 * forwards SIGWINCH, which {@link #resize} raises by resizing the local terminal.
 */
final class LocalInteractive implements Interactive {

  private final Process process;
  private final boolean tty;

  private LocalInteractive(Process process, boolean tty) {
    this.process = process;
    this.tty = tty;
  }

  static Interactive start(List<String> argv, boolean tty, TerminalSize size) {
    try {
      if (!tty) {
        return new LocalInteractive(new ProcessBuilder(argv).start(), false);
      }
      Map<String, String> env = new HashMap<>(System.getenv());
      env.putIfAbsent("TERM", "xterm");
      // The terminal gets its size and loses its local echo before srun starts: pty4j would set an
      // initial size after the start, and that SIGWINCH can hit srun while it waits for the job's
      // terminal connection, which it then gives up ("pty: accept failure: Interrupted system
      // call"). Without local echo the first output is the job's, which SlurmStreams waits for
      // before it passes on later sizes.
      List<String> prepared = new ArrayList<>(List.of("sh", "-c",
          "stty -echo rows %d cols %d 2>/dev/null; exec \"$@\"".formatted(size.height(), size.width()), "sh"));
      prepared.addAll(argv);
      PtyProcess pty = new PtyProcessBuilder(prepared.toArray(String[]::new)).setEnvironment(env)
          .setConsole(false).start();
      return new LocalInteractive(pty, true);
    } catch (IOException e) {
      throw new CrigateException.Unavailable("cannot run %s: %s".formatted(argv.getFirst(), e.getMessage()), e);
    }
  }

  @Override
  public OutputStream stdin() {
    return process.getOutputStream();
  }

  @Override
  public InputStream stdout() {
    return process.getInputStream();
  }

  @Override
  public InputStream stderr() {
    return tty ? InputStream.nullInputStream() : process.getErrorStream();
  }

  @Override
  public void resize(TerminalSize size) {
    if (process instanceof PtyProcess pty && size.width() > 0 && size.height() > 0) {
      pty.setWinSize(new WinSize(size.width(), size.height()));
    }
  }

  @Override
  public int waitFor() throws InterruptedException {
    return process.waitFor();
  }

  @Override
  public void kill() {
    process.destroy();
  }
}
