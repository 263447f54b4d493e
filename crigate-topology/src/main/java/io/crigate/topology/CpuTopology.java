package io.crigate.topology;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The machine's CPUs and memory nodes as discovered (or built for a test or benchmark). Immutable;
 * the groupings (sockets, nodes, cores) and each CPU's node are worked out once here, because the
 * policies ask for them on every decision.
 */
public final class CpuTopology {

  private final List<Cpu> cpus;
  private final CpuSet offline;
  private final CpuSet isolated;
  private final Map<Integer, Map<Integer, Integer>> distances;
  private final CpuSet online;
  /** Indexed by CPU id; null where a CPU is not online. */
  private final Cpu[] byId;
  private final Map<Integer, CpuSet> packages;
  private final Map<Integer, CpuSet> nodes;
  private final Map<Long, CpuSet> cores;
  private final Map<TopologyLevel, List<CpuSet>> levels = new EnumMap<>(TopologyLevel.class);

  /**
   * @param cpus every online CPU
   * @param offline CPUs the kernel knows but that are offline
   * @param isolated CPUs isolated from the scheduler ({@code isolcpus=}), a subset of the online ones
   * @param distances NUMA distance from each node to each node, by node id
   */
  public CpuTopology(List<Cpu> cpus, CpuSet offline, CpuSet isolated, Map<Integer, Map<Integer, Integer>> distances) {
    this.cpus = cpus.stream().sorted(Comparator.comparingInt(Cpu::id)).toList();
    this.offline = Objects.requireNonNull(offline);
    this.isolated = Objects.requireNonNull(isolated);
    this.distances = Map.copyOf(distances);
    this.online = CpuSet.of(this.cpus.stream().mapToInt(Cpu::id));
    this.byId = new Cpu[this.cpus.isEmpty() ? 0 : this.cpus.getLast().id() + 1];
    this.cpus.forEach(c -> byId[c.id()] = c);
    this.packages = groupBy(Cpu::packageId).entrySet().stream()
        .collect(Collectors.toMap(e -> e.getKey().intValue(), Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    this.nodes = groupBy(Cpu::node).entrySet().stream()
        .collect(Collectors.toMap(e -> e.getKey().intValue(), Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    this.cores = groupBy(Cpu::coreKey);
    for (TopologyLevel level : TopologyLevel.values()) {
      levels.put(level, List.copyOf(groupBy(level::keyOf).values()));
    }
  }

  /**
   * This machine as seen by a policy allowed only {@code available} of its CPUs: the others are left
   * out as if they were not there, so every grouping and choice stays inside the set.
   */
  public CpuTopology restrictedTo(CpuSet available) {
    if (available.containsAll(online)) {
      return this;
    }
    return new CpuTopology(cpus.stream().filter(cpu -> available.contains(cpu.id())).toList(), offline,
        isolated.intersect(available), distances);
  }

  /** Every online CPU, by id. */
  public List<Cpu> cpus() {
    return cpus;
  }

  public CpuSet offline() {
    return offline;
  }

  public CpuSet isolated() {
    return isolated;
  }

  public Map<Integer, Map<Integer, Integer>> distances() {
    return distances;
  }

  public CpuSet online() {
    return online;
  }

  public Cpu cpu(int id) {
    if (id < 0 || id >= byId.length || byId[id] == null) {
      throw new IllegalArgumentException("CPU %d is not online".formatted(id));
    }
    return byId[id];
  }

  public Map<Integer, CpuSet> packages() {
    return packages;
  }

  public Map<Integer, CpuSet> nodes() {
    return nodes;
  }

  /** The memory nodes the given CPUs belong to. */
  public CpuSet nodesOf(CpuSet cpuSet) {
    if (nodes.size() == 1) {
      return cpuSet.intersects(online) ? CpuSet.of(nodes.keySet().iterator().next()) : CpuSet.EMPTY;
    }
    return CpuSet.of(cpuSet.stream().filter(id -> id < byId.length && byId[id] != null).map(id -> byId[id].node()).distinct());
  }

  /** Each physical core's CPUs (its hyperthreads), by core key. */
  public Map<Long, CpuSet> cores() {
    return cores;
  }

  public int threadsPerCore() {
    return cpus.isEmpty() ? 1 : cpus.size() / cores.size();
  }

  /** Every CPU in the same element of {@code level} (socket, die, node, core) as any of {@code cpuSet}. */
  public CpuSet sameAs(CpuSet cpuSet, TopologyLevel level) {
    CpuSet out = CpuSet.EMPTY;
    for (CpuSet group : levels.get(level)) {
      if (group.intersects(cpuSet)) {
        out = out.union(group);
      }
    }
    return out;
  }

  private Map<Long, CpuSet> groupBy(ToLongFunction<Cpu> key) {
    return cpus.stream().collect(Collectors.groupingBy(key::applyAsLong, TreeMap::new,
        Collectors.collectingAndThen(Collectors.toList(), l -> CpuSet.of(l.stream().mapToInt(Cpu::id)))));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CpuTopology other && cpus.equals(other.cpus) && offline.equals(other.offline)
        && isolated.equals(other.isolated) && distances.equals(other.distances);
  }

  @Override
  public int hashCode() {
    return Objects.hash(cpus, offline, isolated, distances);
  }

  @Override
  public String toString() {
    return "CpuTopology[online=%s, offline=%s, isolated=%s, nodes=%s]".formatted(online, offline, isolated, nodes.keySet());
  }
}
