package io.crigate.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes the sysfs files CPU classes tune (cpufreq, uncore, cpuidle). A missing file or a
 * write the kernel refuses is logged and skipped: a tuning is never a reason to fail a container.
 */
final class KernelKnobs {

  private static final Logger log = LoggerFactory.getLogger(KernelKnobs.class);

  private KernelKnobs() {}

  /** The number in {@code file}; 0 when it is missing or unreadable. */
  static long read(Path file) {
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file).strip()) : 0;
    } catch (IOException | NumberFormatException e) {
      log.warn("cannot read {}: {}", file, e.toString());
      return 0;
    }
  }

  /**
   * Writes a pair of frequency limits in an order the kernel accepts: never a minimum above the
   * current maximum (the maximum goes first when the minimum rises above it). A limit of 0 is left
   * as it is; a missing file is logged with {@code missing}, the reason.
   */
  static void writeLimits(Path minFile, Path maxFile, long minKhz, long maxKhz, String missing) {
    if (minKhz > 0 && minKhz > read(maxFile)) {
      writeKhz(maxFile, maxKhz, missing);
      writeKhz(minFile, minKhz, missing);
    } else {
      writeKhz(minFile, minKhz, missing);
      writeKhz(maxFile, maxKhz, missing);
    }
  }

  private static void writeKhz(Path file, long kHz, String missing) {
    if (kHz <= 0) {
      return;
    }
    if (!Files.exists(file)) {
      log.warn("cannot set {} to {} kHz: {}", file, kHz, missing);
      return;
    }
    write(file, Long.toString(kHz));
  }

  static void write(Path file, String value) {
    try {
      Files.writeString(file, value);
    } catch (IOException e) {
      log.warn("cannot set {} to {}: {}", file, value, e.toString());
    }
  }
}
