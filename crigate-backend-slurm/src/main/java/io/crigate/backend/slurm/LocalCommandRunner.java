package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Runs Slurm commands on this host with {@link ProcessBuilder}, inheriting SLURM_CONF. */
final class LocalCommandRunner implements CommandRunner {

  @Override
  public CommandResult run(List<String> argv, byte[] stdin) {
    Process process;
    try {
      process = new ProcessBuilder(argv).start();
    } catch (IOException e) {
      throw new CrigateException.Unavailable("cannot run %s: %s".formatted(argv.getFirst(), e.getMessage()), e);
    }
    // Both pipes are drained concurrently: a chatty command would otherwise block on a full pipe.
    CappedOutput out = new CappedOutput("stdout");
    CappedOutput err = new CappedOutput("stderr");
    CompletableFuture<Void> errDrained = CompletableFuture.runAsync(() -> drain(process.getErrorStream(), err),
        Thread::startVirtualThread);
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin);
    } catch (IOException e) {
      // The command exited without reading its input; its exit code tells the story.
    }
    drain(process.getInputStream(), out);
    try {
      int exitCode = process.waitFor();
      errDrained.join();
      return CappedOutput.result(exitCode, out, err);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while running " + argv.getFirst(), e);
    }
  }

  private static void drain(InputStream stream, CappedOutput into) {
    try (stream) {
      stream.transferTo(into);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {}
}
