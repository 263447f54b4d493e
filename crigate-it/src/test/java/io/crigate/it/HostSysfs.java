package io.crigate.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A copy of this host's CPU topology files (what crigate-topology reads under {@code sysfsRoot}),
 * changed in one respect a test names: some CPUs marked isolated, or the package split into dies.
 * The CPU ids stay the host's, so the cpusets a policy computes from the copy pin real containers.
 */
final class HostSysfs {

  private static final Path HOST_CPUS = Path.of("/sys/devices/system/cpu");

  private final Path root;

  private HostSysfs(Path root) {
    this.root = root;
  }

  /** The host's online CPUs with their package, die and core ids, and no NUMA directory (one node). */
  static HostSysfs copyOfThisHost(Path root) {
    try {
      Path cpus = Files.createDirectories(root.resolve("devices/system/cpu"));
      String online = Files.readString(HOST_CPUS.resolve("online")).strip();
      Files.writeString(cpus.resolve("online"), online + "\n");
      for (int cpu : io.crigate.topology.CpuSet.parse(online).stream().toArray()) {
        Path topology = Files.createDirectories(cpus.resolve("cpu" + cpu).resolve("topology"));
        for (String file : List.of("physical_package_id", "die_id", "core_id")) {
          Path host = HOST_CPUS.resolve("cpu" + cpu).resolve("topology").resolve(file);
          if (Files.exists(host)) {
            Files.copy(host, topology.resolve(file));
          }
        }
      }
      return new HostSysfs(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path root() {
    return root;
  }

  /** As if the kernel had booted with {@code isolcpus=CPUS}. */
  HostSysfs isolate(String cpus) {
    write("devices/system/cpu/isolated", cpus);
    return this;
  }

  /**
   * The package split into dies, die i holding the CPUs of {@code cpuLists[i]}. Dies, not NUMA
   * nodes: a container's memory nodes are those of its CPUs, and the kernel refuses a cpuset.mems
   * naming a node this host does not have, while every die here keeps memory node 0.
   */
  HostSysfs dies(String... cpuLists) {
    for (int die = 0; die < cpuLists.length; die++) {
      for (int cpu : io.crigate.topology.CpuSet.parse(cpuLists[die]).stream().toArray()) {
        write("devices/system/cpu/cpu" + cpu + "/topology/die_id", Integer.toString(die));
      }
    }
    return this;
  }

  private void write(String file, String content) {
    try {
      Path path = root.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, content + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
