package io.crigate.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Pod lifecycles on several sides (direct, via crigate, ...) in interleaved rounds, with what is
 * needed to say where a difference goes: each call's wall time, and the CPU each watched process
 * (crigate, containerd) used while each side's lifecycle ran. A process that uses CPU during the
 * direct side's lifecycles works in the background; one that uses more during crigate's does work
 * for it.
 */
final class LifecycleRounds {

  /** A side of the rounds: its name in the report and its pods. */
  record Side(String name, PodFleet fleet) {}

  /**
   * A process, or parts of one, whose CPU time is read around every lifecycle: one reading gives a
   * value per row ({@code rows}, the names in the report).
   */
  record Meter(List<String> rows, Reading reading) {
    /** A meter of one row. */
    Meter(String name, PairedLatency.CpuClock clock) {
      this(List.of(name), () -> new long[] {clock.cpuNanos()});
    }
  }

  /** One reading of a {@link Meter}: CPU nanoseconds per row. */
  @FunctionalInterface
  interface Reading {
    long[] cpuNanos() throws Exception;
  }

  /** What one side measured; {@code cpu} is per meter row, in the order the meters (and their rows) were given. */
  record Timings(String name, Samples total, List<Samples> steps, List<Samples> cpu) {
    Samples step(PodFleet.Step step) {
      return steps.get(step.ordinal());
    }
  }

  /**
   * Everything measured. {@code firstSide} holds, per round, the index of the side that ran first:
   * each round starts with the next side, so whatever a lifecycle leaves behind in containerd is paid
   * by every side in turn, and the report can compare rounds by order.
   */
  record Result(List<Timings> sides, List<Meter> meters, int[] firstSide) {
    Timings side(int index) {
      return sides.get(index);
    }

    /** Every meter's rows, in order: the names of each side's {@code cpu}. */
    List<String> rows() {
      return meters.stream().flatMap(meter -> meter.rows().stream()).toList();
    }

    /**
     * The lifecycle times of two sides in the rounds where {@code numerator} ran first (or, with
     * {@code numeratorFirst} false, where it did not), in round order: [numerator, denominator].
     */
    List<Samples> byOrder(int numerator, int denominator, boolean numeratorFirst) {
      long[] top = sides.get(numerator).total().values(firstSide.length);
      long[] bottom = sides.get(denominator).total().values(firstSide.length);
      Samples topRounds = new Samples();
      Samples bottomRounds = new Samples();
      for (int round = 0; round < firstSide.length; round++) {
        if ((firstSide[round] == numerator) == numeratorFirst) {
          topRounds.add(top[round]);
          bottomRounds.add(bottom[round]);
        }
      }
      return List.of(topRounds, bottomRounds);
    }
  }

  private LifecycleRounds() {}

  /** {@code warmup} untimed rounds, then {@code rounds} timed ones. */
  static Result run(List<Side> sides, List<Meter> meters, int warmup, int rounds) throws Exception {
    for (int i = 0; i < warmup; i++) {
      for (Side side : sides) {
        side.fleet().lifecycle();
      }
    }
    List<Timings> timings = new ArrayList<>();
    for (Side side : sides) {
      List<Samples> steps = new ArrayList<>();
      for (PodFleet.Step ignored : PodFleet.Step.values()) {
        steps.add(new Samples());
      }
      timings.add(new Timings(side.name(), new Samples(), List.copyOf(steps),
          meters.stream().flatMap(meter -> meter.rows().stream()).map(row -> new Samples()).toList()));
    }
    int[] firstSide = new int[rounds];
    long[][] before = new long[meters.size()][];
    for (int round = 0; round < rounds; round++) {
      firstSide[round] = round % sides.size();
      for (int k = 0; k < sides.size(); k++) {
        int index = (round + k) % sides.size();
        Timings side = timings.get(index);
        for (int m = 0; m < meters.size(); m++) {
          before[m] = meters.get(m).reading().cpuNanos();
        }
        long start = System.nanoTime();
        long[] steps = sides.get(index).fleet().timedLifecycle();
        side.total().add(System.nanoTime() - start);
        int row = 0;
        for (int m = 0; m < meters.size(); m++) {
          long[] after = meters.get(m).reading().cpuNanos();
          for (int r = 0; r < after.length; r++) {
            side.cpu().get(row++).add(after[r] - before[m][r]);
          }
        }
        for (PodFleet.Step step : PodFleet.Step.values()) {
          side.step(step).add(steps[step.ordinal()]);
        }
      }
    }
    return new Result(List.copyOf(timings), List.copyOf(meters), firstSide);
  }
}
