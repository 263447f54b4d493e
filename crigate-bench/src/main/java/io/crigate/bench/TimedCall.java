package io.crigate.bench;

/** One CRI call under measurement; it must throw if the call fails so failures never count as fast. */
@FunctionalInterface
interface TimedCall {
  void run() throws Exception;

  /** Runs the call once and returns its wall time in nanoseconds. */
  default long time() throws Exception {
    long start = System.nanoTime();
    run();
    return System.nanoTime() - start;
  }
}
