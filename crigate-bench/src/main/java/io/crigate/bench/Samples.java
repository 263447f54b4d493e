package io.crigate.bench;

import java.util.Arrays;

/** Latency samples in nanoseconds (or other counts, such as bytes), with the nearest-rank percentiles the report prints. */
final class Samples {

  private long[] nanos = new long[1024];
  private int count;

  /** The samples {@code values}, in that order. */
  static Samples of(long[] values) {
    Samples samples = new Samples();
    samples.nanos = values.clone();
    samples.count = values.length;
    return samples;
  }

  void add(long elapsedNanos) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, Math.max(1024, count * 2));
    }
    nanos[count++] = elapsedNanos;
  }

  /** Adds each of {@code other}'s samples, in their order. */
  void addAll(Samples other) {
    for (int i = 0; i < other.count; i++) {
      add(other.nanos[i]);
    }
  }

  int count() {
    return count;
  }

  /** The nearest-rank percentile, in microseconds. */
  double percentileMicros(double percentile) {
    return percentile(percentile) / 1_000.0;
  }

  /** The nearest-rank percentile of the samples as added. */
  long percentile(double percentile) {
    if (count == 0) {
      throw new IllegalStateException("no samples");
    }
    long[] sorted = Arrays.copyOf(nanos, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(percentile / 100.0 * count);
    return sorted[Math.max(0, rank - 1)];
  }

  /** The first {@code count} samples, in the order added. */
  long[] values(int count) {
    if (count > this.count) {
      throw new IllegalArgumentException("only " + this.count + " samples, not " + count);
    }
    return Arrays.copyOf(nanos, count);
  }

  double meanMicros() {
    if (count == 0) {
      throw new IllegalStateException("no samples");
    }
    return Arrays.stream(nanos, 0, count).average().orElseThrow() / 1_000.0;
  }

  double firstMillis() {
    if (count == 0) {
      throw new IllegalStateException("no samples");
    }
    return nanos[0] / 1_000_000.0;
  }

  double medianMillis() {
    return percentileMicros(50) / 1_000.0;
  }
}
