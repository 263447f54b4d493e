package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JobPollerTest {

  private static final Duration INTERVAL = Duration.ofSeconds(1);
  private static final long NOW = 50_000_000_000L;

  record Case(String name, long sinceSubmitMillis, int deferredInARow, boolean defer) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    return List.of(
        new Case("no submission for longer than an interval: poll", 1_500, 0, false),
        new Case("submission exactly one interval ago: poll", 1_000, 0, false),
        new Case("submission within the interval: skip", 200, 0, true),
        new Case("burst goes on: keep skipping", 10, JobPoller.MAX_DEFERRED_POLLS - 1, true),
        new Case("burst goes on but the skip budget is spent: poll", 10, JobPoller.MAX_DEFERRED_POLLS, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void pollsAreDeferredOnlyDuringASubmissionBurstAndOnlyBoundedly(Case c) {
    long lastSubmit = NOW - Duration.ofMillis(c.sinceSubmitMillis()).toNanos();

    assertThat(JobPoller.defer(NOW, lastSubmit, INTERVAL, c.deferredInARow())).isEqualTo(c.defer());
  }
}
