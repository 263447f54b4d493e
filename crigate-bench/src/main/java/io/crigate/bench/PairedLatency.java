package io.crigate.bench;

/**
 * Measures the same call directly against the runtime and through crigate in alternating blocks, so
 * drift on a shared 2-core machine (GC, JIT, other processes) lands on both sides alike.
 */
final class PairedLatency {

  private static final int BLOCK = 100;

  record Result(String call, Samples direct, Samples viaCrigate) {
    double addedP50Micros() {
      return viaCrigate.percentileMicros(50) - direct.percentileMicros(50);
    }

    double addedP99Micros() {
      return viaCrigate.percentileMicros(99) - direct.percentileMicros(99);
    }
  }

  private PairedLatency() {}

  static Result measure(String call, TimedCall direct, TimedCall viaCrigate, int warmup, int iterations)
      throws Exception {
    for (int i = 0; i < warmup; i++) {
      direct.run();
      viaCrigate.run();
    }
    Samples directSamples = new Samples();
    Samples viaSamples = new Samples();
    for (int done = 0; done < iterations; done += BLOCK) {
      int block = Math.min(BLOCK, iterations - done);
      for (int i = 0; i < block; i++) {
        directSamples.add(direct.time());
      }
      for (int i = 0; i < block; i++) {
        viaSamples.add(viaCrigate.time());
      }
    }
    return new Result(call, directSamples, viaSamples);
  }
}
