package io.crigate.topology;

import java.util.Locale;
import java.util.function.ToLongFunction;

/** A level of the hardware tree, from the whole machine down to one physical core. */
public enum TopologyLevel {
  SYSTEM(c -> 0),
  PACKAGE(Cpu::packageId),
  DIE(c -> ((long) c.packageId() << 32) | c.dieId()),
  NUMA(Cpu::node),
  CORE(Cpu::coreKey);

  private final ToLongFunction<Cpu> key;

  TopologyLevel(ToLongFunction<Cpu> key) {
    this.key = key;
  }

  /** Two CPUs are in the same element of this level when their keys are equal. */
  long keyOf(Cpu cpu) {
    return key.applyAsLong(cpu);
  }

  /** The name configurations use: {@code system}, {@code package}, {@code die}, {@code numa}, {@code core}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
