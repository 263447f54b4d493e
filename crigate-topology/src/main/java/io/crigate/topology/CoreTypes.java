package io.crigate.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which CPUs are performance cores and which efficient ones on a hybrid machine. Intel's hybrid
 * parts list them in {@code <sysfs>/devices/cpu_core/cpus} and {@code <sysfs>/devices/cpu_atom/cpus}
 * (the PMU of each core type); elsewhere (Arm big.LITTLE) the kernel's {@code cpuN/cpu_capacity}
 * tells them apart: the CPUs of the highest capacity are performance cores, all others efficient.
 * On a machine with one kind of core both sets are empty.
 *
 * @param performance the performance cores' CPUs
 * @param efficient the efficient cores' CPUs
 */
public record CoreTypes(CpuSet performance, CpuSet efficient) {

  public static final CoreTypes UNIFORM = new CoreTypes(CpuSet.EMPTY, CpuSet.EMPTY);

  /** The two kinds, named as configurations name them ({@code preferCoreType}). */
  public enum Kind {
    PERFORMANCE, EFFICIENT
  }

  public CpuSet of(Kind kind) {
    return kind == Kind.PERFORMANCE ? performance : efficient;
  }

  public boolean hybrid() {
    return !performance.isEmpty() && !efficient.isEmpty();
  }

  /** Reads the core types of {@code online} CPUs under {@code sysRoot}; a machine without the files is uniform. */
  public static CoreTypes discover(Path sysRoot, CpuSet online) {
    Path core = sysRoot.resolve("devices/cpu_core/cpus");
    Path atom = sysRoot.resolve("devices/cpu_atom/cpus");
    if (Files.exists(core) && Files.exists(atom)) {
      return new CoreTypes(CpuSet.parse(read(core)).intersect(online), CpuSet.parse(read(atom)).intersect(online));
    }
    Map<Integer, Integer> capacity = new TreeMap<>();
    online.stream().forEach(cpu -> {
      Path file = sysRoot.resolve("devices/system/cpu/cpu" + cpu + "/cpu_capacity");
      if (Files.exists(file)) {
        capacity.put(cpu, Integer.parseInt(read(file)));
      }
    });
    int highest = capacity.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    CpuSet performance = CpuSet.of(capacity.entrySet().stream().filter(e -> e.getValue() == highest).mapToInt(Map.Entry::getKey));
    CpuSet efficient = CpuSet.of(capacity.keySet().stream().mapToInt(Integer::intValue)).minus(performance);
    return efficient.isEmpty() ? UNIFORM : new CoreTypes(performance, efficient);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read core type file " + file, e);
    }
  }
}
