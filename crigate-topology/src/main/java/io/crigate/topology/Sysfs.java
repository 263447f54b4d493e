package io.crigate.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the CPU and NUMA topology the kernel publishes under {@code <root>/devices/system}. The root
 * is a parameter so that tests read checked-in fixtures and containers read a mounted host sysfs.
 */
public final class Sysfs {

  private Sysfs() {}

  /**
   * @param sysRoot the sysfs mount point, normally {@code /sys}
   * @throws UncheckedIOException naming the file when a required file is missing or unreadable
   */
  public static CpuTopology discover(Path sysRoot) {
    Path cpuDir = sysRoot.resolve("devices/system/cpu");
    CpuSet online = CpuSet.parse(read(cpuDir.resolve("online")));
    CpuSet offline = CpuSet.parse(readOptional(cpuDir.resolve("offline")));
    CpuSet isolated = CpuSet.parse(readOptional(cpuDir.resolve("isolated"))).intersect(online);
    Map<Integer, Integer> nodeOfCpu = new HashMap<>();
    Map<Integer, Map<Integer, Integer>> distances = new TreeMap<>();
    Path nodeDir = sysRoot.resolve("devices/system/node");
    if (Files.isDirectory(nodeDir)) {
      CpuSet nodes = CpuSet.parse(read(nodeDir.resolve("online")));
      nodes.stream().forEach(node -> {
        Path dir = nodeDir.resolve("node" + node);
        CpuSet.parse(readOptional(dir.resolve("cpulist"))).stream().forEach(cpu -> nodeOfCpu.put(cpu, node));
        String[] row = readOptional(dir.resolve("distance")).split("\\s+");
        Map<Integer, Integer> byNode = new TreeMap<>();
        int[] ids = nodes.stream().toArray();
        for (int i = 0; i < ids.length && i < row.length && !row[i].isEmpty(); i++) {
          byNode.put(ids[i], Integer.parseInt(row[i]));
        }
        distances.put(node, byNode);
      });
    }
    List<Cpu> cpus = new ArrayList<>();
    online.stream().forEach(id -> {
      Path topology = cpuDir.resolve("cpu" + id).resolve("topology");
      int pkg = Integer.parseInt(read(topology.resolve("physical_package_id")));
      String die = readOptional(topology.resolve("die_id"));
      int core = Integer.parseInt(read(topology.resolve("core_id")));
      cpus.add(new Cpu(id, pkg, die.isEmpty() ? 0 : Integer.parseInt(die), nodeOfCpu.getOrDefault(id, 0), core));
    });
    if (distances.isEmpty()) {
      distances.put(0, Map.of(0, 10));
    }
    return new CpuTopology(cpus, offline, isolated, distances);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read topology file " + file, e);
    }
  }

  private static String readOptional(Path file) {
    return Files.exists(file) ? read(file) : "";
  }
}
