package io.crigate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Measures the same call directly against the runtime and through one or more intermediaries
 * (crigate, a baseline crigate build, a plain byte relay) in alternating blocks, so drift on a
 * shared 2-core machine (GC, JIT, other processes) lands on every side alike.
 */
final class PairedLatency {

  private static final int BLOCK = 100;

  /** An intermediary under measurement: its name in the report, how to call through it, and its process's CPU time. */
  record Side(String name, TimedCall call, CpuClock cpu) {}

  /**
   * What one side measured.
   *
   * @param cpuNanosPerCall the side's own CPU time (user + system) over its timed calls, per call
   */
  record Measured(String name, Samples samples, double cpuNanosPerCall) {}

  record Result(String call, Samples direct, List<Measured> sides) {
    Measured side(String name) {
      return sides.stream().filter(side -> side.name().equals(name)).findFirst()
          .orElseThrow(() -> new NoSuchElementException("no side " + name));
    }

    double addedMicros(String side, double percentile) {
      return side(side).samples().percentileMicros(percentile) - direct.percentileMicros(percentile);
    }
  }

  @FunctionalInterface
  interface CpuClock {
    long cpuNanos() throws Exception;
  }

  private PairedLatency() {}

  static Result measure(String call, TimedCall direct, List<Side> sides, int warmup, int iterations) throws Exception {
    for (int i = 0; i < warmup; i++) {
      direct.run();
      for (Side side : sides) {
        side.call().run();
      }
    }
    Samples directSamples = new Samples();
    List<Samples> sideSamples = sides.stream().map(side -> new Samples()).toList();
    long[] cpu = new long[sides.size()];
    for (int done = 0; done < iterations; done += BLOCK) {
      int block = Math.min(BLOCK, iterations - done);
      for (int i = 0; i < block; i++) {
        directSamples.add(direct.time());
      }
      for (int s = 0; s < sides.size(); s++) {
        Side side = sides.get(s);
        long before = side.cpu().cpuNanos();
        for (int i = 0; i < block; i++) {
          sideSamples.get(s).add(side.call().time());
        }
        cpu[s] += side.cpu().cpuNanos() - before;
      }
    }
    List<Measured> measured = new ArrayList<>();
    for (int s = 0; s < sides.size(); s++) {
      measured.add(new Measured(sides.get(s).name(), sideSamples.get(s), (double) cpu[s] / Math.max(1, iterations)));
    }
    return new Result(call, directSamples, List.copyOf(measured));
  }
}
