package io.crigate.cli;

import java.io.PrintStream;
import java.util.function.IntConsumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Progress of a long task on stderr, for people: a redrawn bar only when stderr is a terminal, and
 * otherwise a plain line at every tenth, so log files and CI output never collect carriage returns
 * or escape codes. Whether stderr is a terminal is only known for sure by the shell that started the
 * JVM (a JDK 22+ {@code System.console()} exists even when redirected), so {@code bin/crigate} tells
 * us through the {@code crigate.stderr.tty} property; without it we assume a log.
 */
public final class Progress {

  private Progress() {}

  /** A consumer of "done so far" counts for a task of {@code total} steps. */
  public static IntConsumer on(String task, int total) {
    return Boolean.getBoolean("crigate.stderr.tty") ? bar(task, total) : lines(System.err, task, total);
  }

  static IntConsumer lines(PrintStream out, String task, int total) {
    int[] lastTenth = {0};
    return done -> {
      int tenth = total == 0 ? 10 : (int) (10L * done / total);
      if (tenth > lastTenth[0]) {
        lastTenth[0] = tenth;
        out.printf("%s: %d/%d%n", task, done, total);
      }
    };
  }

  private static IntConsumer bar(String task, int total) {
    ProgressBar bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
        .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    return done -> {
      bar.stepTo(done);
      if (done == total) {
        bar.close();
      }
    };
  }
}
