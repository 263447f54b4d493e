package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JobOutcomeTest {

  record Case(String name, String state, int exit, int signal, boolean stopped, String reason, int code) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("success", "COMPLETED", 0, 0, false, "Completed", 0),
        new Case("non-zero exit", "FAILED", 7, 0, false, "Error", 7),
        // killed by SIGTERM after StopContainer: 128 + 15
        new Case("stopped by us", "FAILED", 0, 15, true, "Cancelled", 143),
        new Case("killed by a signal we did not send", "FAILED", 0, 9, false, "Error", 137),
        // scancel without signal reports exit 0:0; a cancelled job must not look successful
        new Case("scancel", "CANCELLED", 0, 0, true, "Cancelled", 143),
        new Case("time limit", "TIMEOUT", 0, 0, false, "TimeLimit", 143),
        new Case("out of memory", "OUT_OF_MEMORY", 0, 0, false, "OOMKilled", 137),
        new Case("node failure", "NODE_FAIL", 0, 0, false, "Error", 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void mapsSlurmEndsToKubeletReasons(Case c) {
    JobState job = new JobState(42, "crigate-x", c.state(), "None", Optional.of(new JobState.Exit(c.exit(), c.signal())),
        Optional.of(Instant.ofEpochSecond(100)), Optional.of(Instant.ofEpochSecond(160)));

    Records.Finish finish = JobOutcome.finish(job, c.stopped(), 1, 2);

    assertThat(finish.reason()).isEqualTo(c.reason());
    assertThat(finish.exitCode()).isEqualTo(c.code());
    assertThat(finish.startedAt()).isEqualTo(100_000_000_000L);
    assertThat(finish.finishedAt()).isEqualTo(160_000_000_000L);
  }
}
