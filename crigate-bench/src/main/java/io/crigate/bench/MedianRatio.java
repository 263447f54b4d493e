package io.crigate.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The ratio of two sides' medians with a 95% percentile-bootstrap interval. The sides were measured in
 * the same rounds (sample {@code i} of each in round {@code i}), so the bootstrap draws whole rounds:
 * a round slowed by the machine weighs on both sides, as it did when measured. A ratio whose interval
 * lies below a target shows it met; one that straddles the target says more rounds are needed.
 */
record MedianRatio(double ratio, double low, double high, int rounds) {

  private static final int RESAMPLES = 2_000;
  /** Fixed, so the same samples always report the same interval. */
  private static final long SEED = 42;

  static MedianRatio of(Samples numerator, Samples denominator) {
    int rounds = Math.min(numerator.count(), denominator.count());
    if (rounds == 0) {
      throw new IllegalStateException("no rounds");
    }
    long[] top = numerator.values(rounds);
    long[] bottom = denominator.values(rounds);
    double[] ratios = new double[RESAMPLES];
    SplittableRandom random = new SplittableRandom(SEED);
    long[] drawnTop = new long[rounds];
    long[] drawnBottom = new long[rounds];
    for (int r = 0; r < RESAMPLES; r++) {
      for (int i = 0; i < rounds; i++) {
        int round = random.nextInt(rounds);
        drawnTop[i] = top[round];
        drawnBottom[i] = bottom[round];
      }
      ratios[r] = median(drawnTop) / median(drawnBottom);
    }
    Arrays.sort(ratios);
    return new MedianRatio(median(top) / median(bottom), ratios[(int) (RESAMPLES * 0.025)],
        ratios[(int) (RESAMPLES * 0.975) - 1], rounds);
  }

  /** Half the interval's width: how far the ratio could move with another run of as many rounds. */
  double halfWidth() {
    return (high - low) / 2;
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
  }
}
