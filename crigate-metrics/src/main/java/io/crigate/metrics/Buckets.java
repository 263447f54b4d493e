package io.crigate.metrics;

/** Histogram bucket bounds, each in the unit its name says. */
final class Buckets {

  /** CRI calls: a forwarded unary call takes 50-150 us here, a pod start 20-100 ms, a pull seconds. */
  static final double[] CALL_SECONDS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
      0.25, 0.5, 1, 2.5, 5, 10, 30, 120};

  /** SQLite commits in WAL mode with synchronous=NORMAL: tens of microseconds to milliseconds. */
  static final double[] WRITE_SECONDS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1};

  private Buckets() {}
}
