package io.crigate.bench;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

/**
 * How much slower one side is than another, with a 95% percentile-bootstrap interval. The sides were
 * measured in the same rounds (sample {@code i} of each in round {@code i}), so the bootstrap draws
 * whole rounds: a round slowed by the machine weighs on both sides, as it did when measured. A ratio
 * whose interval lies below a target shows it met; one that straddles the target says more rounds
 * are needed. {@link #pairedDifference} estimates how much longer instead, in the samples' unit.
 *
 * @param ratio the estimate from all rounds (a difference for {@link #pairedDifference})
 * @param low the interval's lower end
 * @param high the interval's upper end
 * @param rounds how many rounds it rests on
 */
record MedianRatio(double ratio, double low, double high, int rounds) {

  private static final int RESAMPLES = 2_000;
  /** Fixed, so the same samples always report the same interval. */
  private static final long SEED = 42;

  /** The ratio of the two sides' medians: the lifecycle ratio as this benchmark has always reported it. */
  static MedianRatio ofMedians(Samples numerator, Samples denominator) {
    return bootstrap(numerator, denominator, (top, bottom) -> median(top) / median(bottom));
  }

  /**
   * The median of each round's own ratio. A shared machine's load drifts over minutes, far more than
   * the few percent under test; dividing within each round cancels what both sides of it shared.
   */
  static MedianRatio paired(Samples numerator, Samples denominator) {
    return bootstrap(numerator, denominator, (top, bottom) -> {
      double[] ratios = new double[top.length];
      for (int i = 0; i < top.length; i++) {
        ratios[i] = (double) top[i] / bottom[i];
      }
      return median(ratios);
    });
  }

  /**
   * The median of each round's own difference, {@code minuend - subtrahend}, in the samples' unit:
   * for an added cost that is small next to the call (0.5 ms on a 15 ms CreateContainer), where a
   * ratio reads poorly and two medians' difference carries each side's own spread.
   */
  static MedianRatio pairedDifference(Samples minuend, Samples subtrahend) {
    return bootstrap(minuend, subtrahend, (top, bottom) -> {
      double[] differences = new double[top.length];
      for (int i = 0; i < top.length; i++) {
        differences[i] = (double) top[i] - bottom[i];
      }
      return median(differences);
    });
  }

  /** Half the interval's width: how far the ratio could move with another run of as many rounds. */
  double halfWidth() {
    return (high - low) / 2;
  }

  /**
   * How much higher {@code minuend}'s {@code percentile} is than {@code subtrahend}'s, in the
   * samples' unit: the latency a hop adds at p99, with an interval that says whether such a tail
   * difference is established at all (on a loaded machine each side's p99 is a few dozen stalls).
   */
  static MedianRatio percentileDifference(Samples minuend, Samples subtrahend, double percentile) {
    return bootstrap(minuend, subtrahend,
        (top, bottom) -> (double) Samples.of(top).percentile(percentile) - Samples.of(bottom).percentile(percentile));
  }

  private static MedianRatio bootstrap(Samples numerator, Samples denominator, BiFunction<long[], long[], Double> estimate) {
    int rounds = Math.min(numerator.count(), denominator.count());
    if (rounds == 0) {
      throw new IllegalStateException("no rounds");
    }
    long[] top = numerator.values(rounds);
    long[] bottom = denominator.values(rounds);
    double[] estimates = new double[RESAMPLES];
    SplittableRandom random = new SplittableRandom(SEED);
    long[] drawnTop = new long[rounds];
    long[] drawnBottom = new long[rounds];
    for (int r = 0; r < RESAMPLES; r++) {
      for (int i = 0; i < rounds; i++) {
        int round = random.nextInt(rounds);
        drawnTop[i] = top[round];
        drawnBottom[i] = bottom[round];
      }
      estimates[r] = estimate.apply(drawnTop, drawnBottom);
    }
    Arrays.sort(estimates);
    return new MedianRatio(estimate.apply(top, bottom), estimates[(int) (RESAMPLES * 0.025)],
        estimates[(int) (RESAMPLES * 0.975) - 1], rounds);
  }

  private static double median(long[] values) {
    return median(Arrays.stream(values).asDoubleStream().toArray());
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
  }
}
