package io.crigate.policy;

import io.crigate.topology.Cpu;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Sets uncore frequency limits through the intel_uncore_frequency driver
 * ({@code <sysfs>/devices/system/cpu/intel_uncore_frequency/package_PP_die_DD/{min,max}_freq_khz}),
 * one zone per package and die. A write the kernel refuses is logged and skipped ({@link KernelKnobs}).
 */
final class UncoreFrequencies {

  private final Path dir;

  UncoreFrequencies(Path sysfsRoot) {
    this.dir = sysfsRoot.resolve("devices/system/cpu/intel_uncore_frequency");
  }

  /** Whether the driver is loaded (its directory exists). */
  boolean available() {
    return Files.isDirectory(dir);
  }

  /**
   * Gives the zone (package and die) of {@code cpu} these limits; 0 for both gives it back its
   * initial limits ({@code initial_{min,max}_freq_khz}).
   */
  void apply(Cpu cpu, long minKhz, long maxKhz) {
    Path zone = dir.resolve("package_%02d_die_%02d".formatted(cpu.packageId(), cpu.dieId()));
    long min = minKhz > 0 || maxKhz > 0 ? minKhz : read(zone.resolve("initial_min_freq_khz"));
    long max = minKhz > 0 || maxKhz > 0 ? maxKhz : read(zone.resolve("initial_max_freq_khz"));
    KernelKnobs.writeLimits(zone.resolve("min_freq_khz"), zone.resolve("max_freq_khz"), min, max, "the uncore zone does not exist");
  }

  private static long read(Path file) {
    return KernelKnobs.read(file);
  }
}
