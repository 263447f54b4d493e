package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The added p99 of a hop and its interval, as the proxy benchmark's per-hop table reports them. */
class PercentileDifferenceTest {

  @Test
  void aHopThatAddsTheSameToEveryCallAddsItAtP99WithNoSpread() {
    Samples direct = new Samples();
    Samples via = new Samples();
    for (int i = 1; i <= 1000; i++) {
      direct.add(i * 1_000L);
      via.add(i * 1_000L + 40_000);
    }
    MedianRatio added = MedianRatio.percentileDifference(via, direct, 99);
    assertThat(added.ratio()).isEqualTo(40_000.0);
    assertThat(added.low()).isEqualTo(40_000.0);
    assertThat(added.high()).isEqualTo(40_000.0);
  }

  @Test
  void stallsOnBothSidesLeaveTheTailDifferenceUndecided() {
    // both sides: 100 µs calls, one in 50 stalled by 1-5 ms at random; the via side adds 40 µs
    SplittableRandom random = new SplittableRandom(7);
    Samples direct = new Samples();
    Samples via = new Samples();
    for (int i = 0; i < 5000; i++) {
      direct.add(100_000 + (random.nextInt(50) == 0 ? random.nextLong(1_000_000, 5_000_000) : 0));
      via.add(140_000 + (random.nextInt(50) == 0 ? random.nextLong(1_000_000, 5_000_000) : 0));
    }
    MedianRatio added = MedianRatio.percentileDifference(via, direct, 99);
    assertThat(added.low()).isLessThan(0);
    assertThat(added.high()).isGreaterThan(150_000);
    assertThat(MedianRatio.percentileDifference(via, direct, 50).ratio()).isEqualTo(40_000.0);
  }
}
