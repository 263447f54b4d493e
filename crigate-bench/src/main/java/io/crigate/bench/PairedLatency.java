package io.crigate.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Measures the same call directly against the runtime and through one or more intermediaries
 * (crigate, a baseline crigate build, a plain byte relay) in alternating blocks, or call by call,
 * so drift on a shared 2-core machine (GC, JIT, other processes) lands on every side alike.
 */
final class PairedLatency {

  private static final int BLOCK = 100;
  private static final long ORDER_SEED = 20261127L;

  /**
   * An intermediary under measurement: its name in the report, how to call through it, its
   * process's CPU time, and the CPU time of the thread that does its I/O (null: not told apart).
   */
  record Side(String name, TimedCall call, CpuClock cpu, CpuClock ioThreadCpu) {
    Side(String name, TimedCall call, CpuClock cpu) {
      this(name, call, cpu, null);
    }
  }

  /**
   * What one side measured.
   *
   * @param cpuNanosPerCall the side's own CPU time (user + system) over its timed calls, per call
   * @param ioThreadNanosPerCall the part of it on the side's I/O thread, NaN when not told apart
   */
  record Measured(String name, Samples samples, double cpuNanosPerCall, double ioThreadNanosPerCall) {}

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
    warm(direct, sides, warmup);
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
    return result(call, sides, iterations, directSamples, sideSamples, cpu, null);
  }

  /**
   * As {@link #measure}, but alternating call by call (each round in its own shuffled order), so
   * a stall of a millisecond or more lands on neighbouring calls of every side rather than on one
   * side's block: the tails of the sides are then comparable, not only their medians. Each side is
   * a process of its own, idle while the others are called, so its CPU time is read once around
   * the whole timed phase; whatever it does in the background meanwhile counts as its own.
   */
  static Result interleaved(String call, TimedCall direct, List<Side> sides, int warmup, int iterations) throws Exception {
    warm(direct, sides, warmup);
    List<TimedCall> calls = new ArrayList<>(List.of(direct));
    sides.forEach(side -> calls.add(side.call()));
    List<Samples> samples = calls.stream().map(any -> new Samples()).toList();
    long[] cpu = new long[sides.size()];
    long[] ioCpu = new long[sides.size()];
    for (int s = 0; s < sides.size(); s++) {
      cpu[s] = -sides.get(s).cpu().cpuNanos();
      ioCpu[s] = sides.get(s).ioThreadCpu() == null ? 0 : -sides.get(s).ioThreadCpu().cpuNanos();
    }
    for (int c : callOrder(calls.size(), iterations, ORDER_SEED)) {
      samples.get(c).add(calls.get(c).time());
    }
    for (int s = 0; s < sides.size(); s++) {
      cpu[s] += sides.get(s).cpu().cpuNanos();
      ioCpu[s] += sides.get(s).ioThreadCpu() == null ? 0 : sides.get(s).ioThreadCpu().cpuNanos();
    }
    return result(call, sides, iterations, samples.getFirst(), samples.subList(1, samples.size()), cpu, ioCpu);
  }

  /**
   * The order of the calls, {@code rounds} rounds of each of {@code calls} once, every round shuffled.
   * A fixed rotation made every side always follow the same other side, whose leftover work (its
   * event loop still writing, a wake-up) then fell on it: two identical builds measured 19-37 µs
   * apart at p50 that way (docs/benchmarks.md). Seeded, so a rerun calls in the same order.
   */
  static int[] callOrder(int calls, int rounds, long seed) {
    Random random = new Random(seed);
    List<Integer> round = new ArrayList<>(IntStream.range(0, calls).boxed().toList());
    int[] order = new int[calls * rounds];
    for (int r = 0; r < rounds; r++) {
      Collections.shuffle(round, random);
      for (int c = 0; c < calls; c++) {
        order[r * calls + c] = round.get(c);
      }
    }
    return order;
  }

  private static void warm(TimedCall direct, List<Side> sides, int warmup) throws Exception {
    for (int i = 0; i < warmup; i++) {
      direct.run();
      for (Side side : sides) {
        side.call().run();
      }
    }
  }

  /** {@code ioCpu} null: no side's I/O thread was read. */
  private static Result result(String call, List<Side> sides, int iterations, Samples direct, List<Samples> sideSamples,
      long[] cpu, long[] ioCpu) {
    List<Measured> measured = new ArrayList<>();
    double calls = Math.max(1, iterations);
    for (int s = 0; s < sides.size(); s++) {
      double io = ioCpu == null || sides.get(s).ioThreadCpu() == null ? Double.NaN : ioCpu[s] / calls;
      measured.add(new Measured(sides.get(s).name(), sideSamples.get(s), cpu[s] / calls, io));
    }
    return new Result(call, direct, List.copyOf(measured));
  }
}
