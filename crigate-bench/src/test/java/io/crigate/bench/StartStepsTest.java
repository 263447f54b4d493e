package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StartStepsTest {

  /** A pull of {@code ms} that begins {@code at} ms into a run of layer-locality at 5 nodes, seed 1. */
  static StartSteps.Start pull(long at, double ms) {
    return new StartSteps.Start("layer-locality", 5, 1, true, ms + 300, at, 0, ms);
  }

  @Test
  void aPullCountsThePullsBesideItForTheShareOfItsTimeTheyOverlap() {
    StartSteps.Start alone = pull(0, 1000);
    StartSteps.Start halfBeside = pull(500, 1000); // overlaps the first one's second half
    StartSteps.Start within = pull(600, 200);      // wholly inside both

    List<StartSteps.Start> run = List.of(alone, halfBeside, within);

    assertThat(StartSteps.pullsInFlight(alone, run)).isEqualTo(1 + 0.5 + 0.2);
    assertThat(StartSteps.pullsInFlight(within, run)).isEqualTo(3);
  }

  @Test
  void rowsWithoutTheStepsAreSkippedAndTheTableSplitsEachStart() {
    assertThat(StartSteps.Start.parse("image-locality\t5\t1\tpod-00000\tchain-3\ttrue\t2278")).isNull();
    StartSteps.Start waiting = StartSteps.Start.parse(
        "image-locality\t5\t1\tpod-00001\tchain-3\tfalse\t900\tapp-1\t1000\t700\t0");
    StartSteps.Start pulling = StartSteps.Start.parse(
        "image-locality\t5\t1\tpod-00000\tchain-3\ttrue\t1500\tapp-1\t0\t0\t1200");

    String tables = StartSteps.tables(List.of(waiting, pulling));

    // means over both starts: 1200 = 350 waiting + 600 pulling + 250 the rest; one pull of 1200 ms, alone
    assertThat(tables).contains("| 5 | image-locality | 2 | 1200 | 350 | 600 | 250 | 1 | 1200 | 1.00 |")
        .contains("| 1 | 1 | 1200 |");
    assertThat(StartSteps.tables(List.of())).isEmpty();
  }
}
