package io.crigate.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The CPUs close to a device named by its sysfs path ({@code /sys/class/net/eth0},
 * {@code /sys/bus/pci/devices/0000:3b:00.0}, {@code /sys/devices/system/node/node1},
 * {@code /sys/devices/system/cpu/cpu4/cache/index2}), read under a configurable sysfs root. The
 * device's directory (its symlinks followed) and then its parents are asked, each directly and
 * through its {@code device} link, for the first of: {@code local_cpulist} (PCI devices),
 * {@code cpulist} (a NUMA node), {@code shared_cpu_list} (a cache), {@code numa_node} (any device
 * the kernel knows a node for; -1 means none).
 */
public final class DeviceLocality {

  private static final List<String> CPU_LISTS = List.of("local_cpulist", "cpulist", "shared_cpu_list");

  private final Path sysRoot;
  private final CpuTopology topology;

  public DeviceLocality(Path sysRoot, CpuTopology topology) {
    this.sysRoot = sysRoot;
    this.topology = topology;
  }

  /**
   * @param device a path starting with {@code /sys/}, as it would be named on the host
   * @return the online CPUs close to it; empty when the device does not exist or says nothing about locality
   * @throws IllegalArgumentException naming the path when it is not under {@code /sys/}
   */
  public Optional<CpuSet> cpusNear(String device) {
    if (!device.startsWith("/sys/")) {
      throw new IllegalArgumentException("'%s' is not a sysfs path (it must start with /sys/)".formatted(device));
    }
    Path path = sysRoot.resolve(device.substring("/sys/".length()));
    if (!Files.exists(path)) {
      return Optional.empty();
    }
    Path root = realPath(sysRoot);
    for (Path dir = realPath(path); dir != null && dir.startsWith(root); dir = dir.getParent()) {
      for (Path candidate : List.of(dir, dir.resolve("device"))) {
        Optional<CpuSet> cpus = localCpus(candidate);
        if (cpus.isPresent()) {
          return cpus;
        }
      }
    }
    return Optional.empty();
  }

  private Optional<CpuSet> localCpus(Path dir) {
    for (String name : CPU_LISTS) {
      Path file = dir.resolve(name);
      if (Files.isRegularFile(file)) {
        return Optional.of(CpuSet.parse(read(file)).intersect(topology.online()));
      }
    }
    Path node = dir.resolve("numa_node");
    if (Files.isRegularFile(node)) {
      int id = Integer.parseInt(read(node));
      return id < 0 ? Optional.empty() : Optional.ofNullable(topology.nodes().get(id));
    }
    return Optional.empty();
  }

  private static Path realPath(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve " + path, e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read device locality file " + file, e);
    }
  }
}
