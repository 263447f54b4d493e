package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs Slurm commands on this host with {@link ProcessBuilder}, inheriting SLURM_CONF. Each command
 * gets {@link CommandDeadline#remaining()}; past it the command and its children are killed.
 */
final class LocalCommandRunner implements CommandRunner {

  @Override
  public Interactive start(List<String> argv, boolean tty, TerminalSize size) {
    return LocalInteractive.start(argv, tty, size);
  }

  @Override
  public CommandResult run(List<String> argv, byte[] stdin) {
    Duration limit = CommandDeadline.remaining();
    long deadline = System.nanoTime() + limit.toNanos();
    Process process;
    try {
      process = new ProcessBuilder(argv).start();
    } catch (IOException e) {
      throw new CrigateException.Unavailable("cannot run %s: %s".formatted(argv.getFirst(), e.getMessage()), e);
    }
    // stdin and both pipes each on their own virtual thread: a chatty command would otherwise
    // block on a full pipe, and one that never reads its input would block us.
    CappedOutput out = new CappedOutput("stdout");
    CappedOutput err = new CappedOutput("stderr");
    CompletableFuture<Void> io = CompletableFuture.allOf(
        async(() -> feed(process.getOutputStream(), stdin)),
        async(() -> drain(process.getInputStream(), out)),
        async(() -> drain(process.getErrorStream(), err)));
    try {
      if (!process.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
        throw kill(process, argv, "did not finish within " + limit.toSeconds() + " s");
      }
      // A child that inherited the pipes can keep them open after the command exits.
      io.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return CappedOutput.result(process.exitValue(), out, err);
    } catch (TimeoutException e) {
      throw kill(process, argv, "left a process holding its output open past " + limit.toSeconds() + " s");
    } catch (ExecutionException e) {
      throw kill(process, argv, "output could not be read: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw kill(process, argv, "was interrupted");
    }
  }

  private static CompletableFuture<Void> async(Runnable task) {
    return CompletableFuture.runAsync(task, Thread::startVirtualThread);
  }

  private static CrigateException.Unavailable kill(Process process, List<String> argv, String why) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    closeQuietly(process.getInputStream());
    closeQuietly(process.getErrorStream());
    return new CrigateException.Unavailable("%s %s and was killed".formatted(argv.getFirst(), why));
  }

  private static void feed(OutputStream stream, byte[] stdin) {
    try (stream) {
      stream.write(stdin);
    } catch (IOException e) {
      // The command exited without reading its input; its exit code tells the story.
    }
  }

  private static void drain(InputStream stream, CappedOutput into) {
    try (stream) {
      stream.transferTo(into);
    } catch (IOException e) {
      // closed by kill(), or the command vanished: what was read is what there is
    }
  }

  private static void closeQuietly(InputStream stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }

  @Override
  public void close() {}
}
