package io.crigate.bench;

import java.util.Optional;

/**
 * Measures the same call directly against the runtime and through crigate (and, when given, through
 * a baseline crigate build) in alternating blocks, so drift on a shared 2-core machine (GC, JIT,
 * other processes) lands on every side alike.
 */
final class PairedLatency {

  private static final int BLOCK = 100;

  /**
   * @param cpuNanosPerCall crigate's own CPU time (user + system) over its timed calls, per call
   */
  record Result(String call, Samples direct, Samples viaCrigate, Optional<Samples> viaBaseline, double cpuNanosPerCall) {
    double addedP50Micros() {
      return viaCrigate.percentileMicros(50) - direct.percentileMicros(50);
    }

    double addedP99Micros() {
      return viaCrigate.percentileMicros(99) - direct.percentileMicros(99);
    }
  }

  /** A crigate side: how to call it and how to read its process's CPU time. */
  record Side(TimedCall call, CpuClock cpu) {}

  @FunctionalInterface
  interface CpuClock {
    long cpuNanos() throws Exception;
  }

  private PairedLatency() {}

  static Result measure(String call, TimedCall direct, Side viaCrigate, Optional<Side> baseline, int warmup,
      int iterations) throws Exception {
    for (int i = 0; i < warmup; i++) {
      direct.run();
      viaCrigate.call().run();
      if (baseline.isPresent()) {
        baseline.get().call().run();
      }
    }
    Samples directSamples = new Samples();
    Samples viaSamples = new Samples();
    Samples baselineSamples = new Samples();
    long cpu = 0;
    for (int done = 0; done < iterations; done += BLOCK) {
      int block = Math.min(BLOCK, iterations - done);
      for (int i = 0; i < block; i++) {
        directSamples.add(direct.time());
      }
      long before = viaCrigate.cpu().cpuNanos();
      for (int i = 0; i < block; i++) {
        viaSamples.add(viaCrigate.call().time());
      }
      cpu += viaCrigate.cpu().cpuNanos() - before;
      if (baseline.isPresent()) {
        for (int i = 0; i < block; i++) {
          baselineSamples.add(baseline.get().call().time());
        }
      }
    }
    return new Result(call, directSamples, viaSamples, baseline.map(unused -> baselineSamples),
        (double) cpu / Math.max(1, iterations));
  }
}
