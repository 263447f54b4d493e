package io.crigate.policy;

import io.crigate.policy.BalloonsConfig.CpuClass;
import io.crigate.topology.CpuSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes CPU classes to cpufreq ({@code <sysfs>/devices/system/cpu/cpuN/cpufreq/scaling_{min,max}_freq},
 * kHz). A CPU without cpufreq, or a write the kernel refuses, is logged and skipped: a frequency is a
 * tuning, never a reason to fail a container.
 */
final class CpuFrequencies {

  private static final Logger log = LoggerFactory.getLogger(CpuFrequencies.class);

  private final Path cpuDir;

  CpuFrequencies(Path sysfsRoot) {
    this.cpuDir = sysfsRoot.resolve("devices/system/cpu");
  }

  /** Gives {@code cpus} the limits of {@code cpuClass}; a limit of 0 is left as it is. */
  void apply(CpuSet cpus, CpuClass cpuClass) {
    cpus.stream().forEach(cpu -> {
      Path dir = cpuDir.resolve("cpu" + cpu).resolve("cpufreq");
      // Write in an order the kernel accepts: never a minimum above the current maximum, or the reverse.
      boolean raising = cpuClass.minFreq() > 0 && cpuClass.minFreq() > read(dir.resolve("scaling_max_freq"));
      if (raising) {
        write(dir.resolve("scaling_max_freq"), cpuClass.maxFreq());
        write(dir.resolve("scaling_min_freq"), cpuClass.minFreq());
      } else {
        write(dir.resolve("scaling_min_freq"), cpuClass.minFreq());
        write(dir.resolve("scaling_max_freq"), cpuClass.maxFreq());
      }
    });
  }

  /** Gives {@code cpus} back their hardware limits ({@code cpuinfo_min_freq}, {@code cpuinfo_max_freq}). */
  void reset(CpuSet cpus) {
    cpus.stream().forEach(cpu -> {
      Path dir = cpuDir.resolve("cpu" + cpu).resolve("cpufreq");
      apply(CpuSet.of(cpu), new CpuClass(read(dir.resolve("cpuinfo_min_freq")), read(dir.resolve("cpuinfo_max_freq"))));
    });
  }

  private static long read(Path file) {
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file).strip()) : 0;
    } catch (IOException | NumberFormatException e) {
      log.warn("cannot read {}: {}", file, e.toString());
      return 0;
    }
  }

  private static void write(Path file, long kHz) {
    if (kHz <= 0) {
      return;
    }
    if (!Files.exists(file)) {
      log.warn("cannot set {} to {} kHz: the CPU has no cpufreq", file, kHz);
      return;
    }
    try {
      Files.writeString(file, Long.toString(kHz));
    } catch (IOException e) {
      log.warn("cannot set {} to {} kHz: {}", file, kHz, e.toString());
    }
  }
}
