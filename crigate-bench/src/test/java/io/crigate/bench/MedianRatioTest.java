package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The lifecycle ratio and its interval, as the proxy benchmark reports them. */
class MedianRatioTest {

  @Test
  void sidesThatTookTheSameTimeEveryRoundGiveOneWithNoSpread() {
    Samples direct = samples(100, 140, 120, 300);
    MedianRatio ratio = MedianRatio.ofMedians(samples(100, 140, 120, 300), direct);
    assertThat(ratio.ratio()).isEqualTo(1.0);
    assertThat(ratio.low()).isEqualTo(1.0);
    assertThat(ratio.high()).isEqualTo(1.0);
  }

  @Test
  void theRatioIsOfMediansNotOfMeans() {
    // medians 120 and 100; the via side's one slow round moves its mean, not its median
    MedianRatio ratio = MedianRatio.ofMedians(samples(110, 120, 10_000), samples(90, 100, 110));
    assertThat(ratio.ratio()).isEqualTo(1.2);
    assertThat(ratio.rounds()).isEqualTo(3);
  }

  @Test
  void theIntervalHoldsTheRatioAndNarrowsWithMoreRounds() {
    MedianRatio few = noisyRatio(10);
    MedianRatio many = noisyRatio(400);
    assertThat(few.low()).isLessThanOrEqualTo(few.ratio());
    assertThat(few.high()).isGreaterThanOrEqualTo(few.ratio());
    assertThat(many.ratio()).isCloseTo(1.05, within(0.02));
    assertThat(many.low()).isLessThan(1.05).isGreaterThan(1.0);
    assertThat(many.halfWidth()).isLessThan(few.halfWidth() / 2);
  }

  @Test
  void perRoundRatiosCancelTheLoadBothSidesOfARoundShared() {
    // every round the via side takes exactly 5% longer, while the machine's load moves both by up to 3x
    Samples direct = new Samples();
    Samples via = new Samples();
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 30; i++) {
      long base = 100_000_000 + random.nextLong(200_000_000);
      direct.add(base);
      via.add(base * 105 / 100);
    }
    MedianRatio paired = MedianRatio.paired(via, direct);
    assertThat(paired.ratio()).isCloseTo(1.05, within(1e-6));
    assertThat(paired.halfWidth()).isLessThan(1e-6);
  }

  @Test
  void thePairedIntervalIsTighterThanTheMediansOneUnderSharedLoad() {
    SplittableRandom random = new SplittableRandom(7);
    Samples direct = new Samples();
    Samples via = new Samples();
    for (int i = 0; i < 40; i++) {
      double load = 1 + random.nextDouble(-0.3, 0.3);
      direct.add((long) (200_000_000 * load * (1 + random.nextDouble(-0.05, 0.05))));
      via.add((long) (210_000_000 * load * (1 + random.nextDouble(-0.05, 0.05))));
    }
    MedianRatio paired = MedianRatio.paired(via, direct);
    assertThat(paired.low()).isGreaterThan(1.0);
    assertThat(paired.halfWidth()).isLessThan(MedianRatio.ofMedians(via, direct).halfWidth() / 2);
  }

  @Test
  void thePairedDifferenceIsTheAddedCostOfEachRoundWhateverTheLoad() {
    // every round the policy side takes 0.4 ms longer, while the machine moves both by up to 20 ms
    long[] rounds = new SplittableRandom(5).longs(50, 10_000_000, 30_000_000).toArray();
    Samples none = samples(rounds);
    Samples policy = samples(java.util.Arrays.stream(rounds).map(nanos -> nanos + 400_000).toArray());
    MedianRatio added = MedianRatio.pairedDifference(policy, none);
    assertThat(added.ratio()).isEqualTo(400_000.0);
    assertThat(added.low()).isEqualTo(400_000.0);
    assertThat(added.high()).isEqualTo(400_000.0);
    assertThat(MedianRatio.pairedDifference(none, policy).ratio()).isEqualTo(-400_000.0);
  }

  @Test
  void rejectsSidesWithoutRounds() {
    assertThatThrownBy(() -> MedianRatio.ofMedians(new Samples(), samples(1))).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> MedianRatio.paired(samples(1), new Samples())).isInstanceOf(IllegalStateException.class);
  }

  /** Rounds whose shared load varies by ±30%, the via side 5% slower than direct plus its own ±5% jitter. */
  private static MedianRatio noisyRatio(int rounds) {
    SplittableRandom random = new SplittableRandom(7);
    Samples direct = new Samples();
    Samples via = new Samples();
    for (int i = 0; i < rounds; i++) {
      double load = 1 + random.nextDouble(-0.3, 0.3);
      direct.add((long) (200_000_000 * load * (1 + random.nextDouble(-0.05, 0.05))));
      via.add((long) (210_000_000 * load * (1 + random.nextDouble(-0.05, 0.05))));
    }
    return MedianRatio.ofMedians(via, direct);
  }

  private static Samples samples(long... values) {
    Samples samples = new Samples();
    for (long value : values) {
      samples.add(value);
    }
    return samples;
  }
}
