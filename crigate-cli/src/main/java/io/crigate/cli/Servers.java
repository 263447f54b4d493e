package io.crigate.cli;

import io.crigate.spi.CrigateException;
import java.io.PrintWriter;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/** Starts what a long-running subcommand serves, and keeps it until the process is told to stop. */
final class Servers {

  private Servers() {}

  /**
   * Runs {@code start}, which pushes everything it opens onto {@code running}; on a failure closes
   * it all and returns the exit code, else waits for SIGTERM and closes in reverse order.
   */
  static int runUntilStopped(String command, PrintWriter err, Deque<AutoCloseable> running,
      Consumer<Deque<AutoCloseable>> start) throws InterruptedException {
    try {
      start.accept(running);
    } catch (CrigateException.InvalidArgument | IllegalArgumentException e) {
      closeAll(running);
      err.println("crigate " + command + ": " + e.getMessage());
      return ServeCommand.EXIT_BAD_CONFIG;
    } catch (RuntimeException e) {
      closeAll(running);
      err.println("crigate " + command + ": cannot start: " + StartFailure.describe(e));
      LoggerFactory.getLogger(Servers.class).debug("start failed", e);
      return ServeCommand.EXIT_START_FAILED;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name(command + "-shutdown").unstarted(() -> {
      closeAll(running);
      stopped.countDown();
    }));
    stopped.await();
    return 0;
  }

  static void closeAll(Deque<AutoCloseable> running) {
    while (!running.isEmpty()) {
      try {
        running.pop().close();
      } catch (Exception e) {
        LoggerFactory.getLogger(Servers.class).warn("closing failed: {}", e.getMessage());
      }
    }
  }
}
