package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.cli.ctl.CriLogDecoder.LogLine;
import io.crigate.spi.CrigateException.FailedPrecondition;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "logs",
    description = "Print a container's log (read from its CRI log file; stderr lines go to stderr).")
final class LogsCommand extends CriAction {

  /** How often {@code -f} looks for new output; polling works on any filesystem the log lives on. */
  private static final Duration FOLLOW_POLL = Duration.ofMillis(200);

  @Parameters(index = "0", paramLabel = "CONTAINER-ID", description = "Container id or unique prefix.")
  String container;

  @Option(names = "--tail", description = "Only the last N lines (default: all).")
  long tail = -1;

  @Option(names = {"-f", "--follow"}, description = "Keep printing new output until the container stops.")
  boolean follow;

  @Option(names = {"-t", "--timestamps"}, description = "Prefix each line with its timestamp.")
  boolean timestamps;

  @Override
  int run(CriSession cri) throws IOException {
    String id = cri.containerId(container);
    ContainerStatus status = status(cri, id);
    if (status.getLogPath().isEmpty()) {
      throw new FailedPrecondition(
          "container %s has no log path (its pod config sets no log_directory)".formatted(id));
    }
    CriLogDecoder decoder = new CriLogDecoder();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream log = Files.newInputStream(Path.of(status.getLogPath()))) {
      Deque<LogLine> last = new ArrayDeque<>();
      for (int n; (n = log.read(buffer)) > 0; ) {
        for (LogLine line : decoder.feed(buffer, n)) {
          last.addLast(line);
          if (tail >= 0 && last.size() > tail) {
            last.removeFirst();
          }
        }
      }
      last.forEach(this::print);
      while (follow) { // ends when the container is no longer running
        int n = log.read(buffer);
        if (n > 0) {
          decoder.feed(buffer, n).forEach(this::print);
        } else if (status(cri, id).getState() == ContainerState.CONTAINER_RUNNING) {
          out().flush();
          err().flush();
          sleep();
        } else {
          drain(log, decoder, buffer);
          return 0;
        }
      }
    }
    return 0;
  }

  /** Prints what the container wrote between the last read and its exit. */
  private void drain(InputStream log, CriLogDecoder decoder, byte[] buffer) throws IOException {
    for (int n; (n = log.read(buffer)) > 0; ) {
      decoder.feed(buffer, n).forEach(this::print);
    }
  }

  private void print(LogLine line) {
    PrintWriter target = line.isStderr() ? err() : out();
    target.println(timestamps ? line.timestamp() + " " + line.content() : line.content());
  }

  private static ContainerStatus status(CriSession cri, String id) {
    return cri.runtime()
        .containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build())
        .getStatus();
  }

  private static void sleep() {
    try {
      Thread.sleep(FOLLOW_POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FailedPrecondition("interrupted while following the log");
    }
  }
}
