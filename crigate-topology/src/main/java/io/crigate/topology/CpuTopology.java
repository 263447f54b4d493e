package io.crigate.topology;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * The machine's CPUs and memory nodes as discovered (or built for a test or benchmark).
 *
 * @param cpus every online CPU, by id
 * @param offline CPUs the kernel knows but that are offline
 * @param isolated CPUs isolated from the scheduler ({@code isolcpus=}), a subset of the online ones
 * @param distances NUMA distance from each node to each node, by node id
 */
public record CpuTopology(List<Cpu> cpus, CpuSet offline, CpuSet isolated, Map<Integer, Map<Integer, Integer>> distances) {

  public CpuTopology {
    cpus = cpus.stream().sorted(Comparator.comparingInt(Cpu::id)).toList();
    distances = Map.copyOf(distances);
  }

  public CpuSet online() {
    return CpuSet.of(cpus.stream().mapToInt(Cpu::id));
  }

  public Cpu cpu(int id) {
    return cpus.stream().filter(c -> c.id() == id).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("CPU %d is not online".formatted(id)));
  }

  public Map<Integer, CpuSet> packages() {
    return groupBy(Cpu::packageId);
  }

  public Map<Integer, CpuSet> nodes() {
    return groupBy(Cpu::node);
  }

  /** The memory nodes the given CPUs belong to. */
  public CpuSet nodesOf(CpuSet cpuSet) {
    return CpuSet.of(cpus.stream().filter(c -> cpuSet.contains(c.id())).mapToInt(Cpu::node));
  }

  /** Each physical core's CPUs (its hyperthreads), by core key. */
  public Map<Long, CpuSet> cores() {
    return cpus.stream().collect(Collectors.groupingBy(Cpu::coreKey, TreeMap::new,
        Collectors.collectingAndThen(Collectors.toList(), l -> CpuSet.of(l.stream().mapToInt(Cpu::id)))));
  }

  public int threadsPerCore() {
    return cpus.isEmpty() ? 1 : cpus.size() / cores().size();
  }

  private Map<Integer, CpuSet> groupBy(ToIntFunction<Cpu> key) {
    return cpus.stream().collect(Collectors.groupingBy(key::applyAsInt, TreeMap::new,
        Collectors.collectingAndThen(Collectors.toList(), l -> CpuSet.of(l.stream().mapToInt(Cpu::id)))));
  }
}
