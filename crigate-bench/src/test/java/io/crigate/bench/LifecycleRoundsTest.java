package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How the lifecycle rounds are split by which side ran first, for the ordering check in the report. */
class LifecycleRoundsTest {

  @Test
  void roundsAreSplitByWhetherTheNumeratorRanFirst() {
    // rounds alternate: direct (0) first, then crigate (1) first, and so on
    LifecycleRounds.Result rounds = new LifecycleRounds.Result(List.of(
        timings("direct", 100, 200, 300, 400), timings("crigate", 110, 260, 330, 480)), List.of(), new int[] {0, 1, 0, 1});

    List<Samples> crigateFirst = rounds.byOrder(1, 0, true);
    List<Samples> directFirst = rounds.byOrder(1, 0, false);

    assertThat(crigateFirst.get(0).values(2)).containsExactly(260, 480);
    assertThat(crigateFirst.get(1).values(2)).containsExactly(200, 400);
    assertThat(directFirst.get(0).values(2)).containsExactly(110, 330);
    assertThat(directFirst.get(1).values(2)).containsExactly(100, 300);
  }

  private static LifecycleRounds.Timings timings(String name, long... totals) {
    Samples total = new Samples();
    for (long value : totals) {
      total.add(value);
    }
    return new LifecycleRounds.Timings(name, total, List.of(), List.of());
  }
}
