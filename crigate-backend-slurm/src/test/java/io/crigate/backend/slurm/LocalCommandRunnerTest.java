package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.spi.CrigateException;
import io.grpc.Context;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: issue 16 item 5, a hung Slurm command must not outlive the CRI call that runs it. */
class LocalCommandRunnerTest {

  @TempDir Path tmp;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final LocalCommandRunner runner = new LocalCommandRunner();

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private CommandResult runWithin(long seconds, List<String> argv) throws Exception {
    Context.CancellableContext call = Context.current().withDeadlineAfter(seconds, TimeUnit.SECONDS, timer);
    try {
      return call.call(() -> runner.run(argv, new byte[0]));
    } finally {
      call.cancel(null);
    }
  }

  @Test
  void aCommandStillRunningAtTheCallsDeadlineIsKilledWithItsChildren() throws Exception {
    Path pids = tmp.resolve("pids");
    // a hung sbatch: it never ends on its own, and it has a child of its own
    List<String> hung = List.of("/bin/sh", "-c", "sleep 300 & echo $! > " + pids + "; echo $$ >> " + pids + "; wait");

    assertThatThrownBy(() -> runWithin(1, hung)).isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageContaining("/bin/sh did not finish within").hasMessageContaining("killed");

    List<Long> started = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
    assertThat(started).hasSize(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.stream()
        .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
  }

  @Test
  void aCommandThatEndsInTimeKeepsItsOutputAndExitCode() throws Exception {
    CommandResult result = runWithin(30, List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 3"));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.out()).isEqualTo("out\n");
    assertThat(result.err()).isEqualTo("err");
  }
}
