package io.crigate.policy;

import io.crigate.policy.BalloonsConfig.CpuClass;
import io.crigate.topology.CpuSet;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes CPU classes to cpufreq ({@code <sysfs>/devices/system/cpu/cpuN/cpufreq/scaling_{min,max}_freq},
 * kHz). A CPU without cpufreq, or a write the kernel refuses, is logged and skipped ({@link KernelKnobs}).
 */
final class CpuFrequencies {

  private final Path cpuDir;

  CpuFrequencies(Path sysfsRoot) {
    this.cpuDir = sysfsRoot.resolve("devices/system/cpu");
  }

  /** Gives {@code cpus} the limits of {@code cpuClass}; a limit of 0 is left as it is. */
  void apply(CpuSet cpus, CpuClass cpuClass) {
    cpus.stream().forEach(cpu -> {
      Path dir = cpuDir.resolve("cpu" + cpu).resolve("cpufreq");
      KernelKnobs.writeLimits(dir.resolve("scaling_min_freq"), dir.resolve("scaling_max_freq"), cpuClass.minFreq(),
          cpuClass.maxFreq(), "the CPU has no cpufreq");
    });
  }

  /** Gives {@code cpus} back their hardware limits ({@code cpuinfo_min_freq}, {@code cpuinfo_max_freq}). */
  void reset(CpuSet cpus) {
    cpus.stream().forEach(cpu -> {
      Path dir = cpuDir.resolve("cpu" + cpu).resolve("cpufreq");
      apply(CpuSet.of(cpu), new CpuClass(read(dir.resolve("cpuinfo_min_freq")), read(dir.resolve("cpuinfo_max_freq")), 0, 0, List.of()));
    });
  }

  private static long read(Path file) {
    return KernelKnobs.read(file);
  }
}
