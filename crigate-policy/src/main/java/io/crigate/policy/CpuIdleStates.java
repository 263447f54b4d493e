package io.crigate.policy;

import io.crigate.spi.CrigateException;
import io.crigate.topology.CpuSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Enables and disables C-states through cpuidle ({@code <sysfs>/devices/system/cpu/cpuN/cpuidle/stateK/},
 * {@code name} and {@code disable}). The states are read once; a write the kernel refuses is logged
 * and skipped ({@link KernelKnobs}).
 */
final class CpuIdleStates {

  /** Per CPU: each state's name and its {@code disable} file. */
  private final Map<Integer, Map<String, Path>> states = new LinkedHashMap<>();

  CpuIdleStates(Path sysfsRoot, CpuSet cpus) {
    Path cpuDir = sysfsRoot.resolve("devices/system/cpu");
    cpus.stream().forEach(cpu -> {
      Path idle = cpuDir.resolve("cpu" + cpu).resolve("cpuidle");
      Map<String, Path> byName = new LinkedHashMap<>();
      if (Files.isDirectory(idle)) {
        try (Stream<Path> dirs = Files.list(idle)) {
          dirs.filter(d -> d.getFileName().toString().startsWith("state")).sorted()
              .forEach(d -> byName.put(read(d.resolve("name")), d.resolve("disable")));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot list " + idle, e);
        }
      }
      states.put(cpu, byName);
    });
  }

  /**
   * Checks that every name is a C-state some CPU has.
   *
   * @throws CrigateException.InvalidArgument naming {@code field} and the states there are
   */
  void requireKnown(List<String> names, String field) {
    TreeSet<String> known = new TreeSet<>();
    states.values().forEach(byName -> known.addAll(byName.keySet()));
    for (String name : names) {
      if (!known.contains(name)) {
        throw new CrigateException.InvalidArgument(known.isEmpty()
            ? "%s: '%s' cannot be disabled: this machine has no cpuidle states (devices/system/cpu/cpu*/cpuidle under the sysfs root)".formatted(field, name)
            : "%s: '%s' is not a C-state of this machine (cpuidle has: %s)".formatted(field, name, String.join(", ", known)));
      }
    }
  }

  /** Lets {@code cpus} enter every C-state except {@code disabled}. */
  void apply(CpuSet cpus, List<String> disabled) {
    cpus.stream().forEach(cpu -> states.getOrDefault(cpu, Map.of())
        .forEach((name, file) -> KernelKnobs.write(file, disabled.contains(name) ? "1" : "0")));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
