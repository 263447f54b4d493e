package io.crigate.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Picks CPUs for an exclusive allocation, knowing nothing about pods. The order follows the kubelet
 * CPU manager's static policy: whole sockets when the request covers one, then, inside the
 * tightest socket and NUMA node that can hold the rest, whole physical cores, and only then single
 * hyperthreads, taking first those whose sibling is already in use so that free cores stay whole.
 * {@link #allocateSpread} keeps the socket and node choice but spreads over physical cores instead.
 */
public final class CpuAllocator {

  private final CpuTopology topology;
  private final List<TopologyLevel> levels = List.of(TopologyLevel.PACKAGE, TopologyLevel.NUMA);
  /** Per level, how many CPUs each of its elements has on the machine: a free element that has them all is whole. */
  private final List<Map<Long, Integer>> sizes;

  public CpuAllocator(CpuTopology topology) {
    this.topology = topology;
    this.sizes = levels.stream().map(level -> {
      Map<Long, Integer> counts = new TreeMap<>();
      topology.cpus().forEach(c -> counts.merge(level.keyOf(c), 1, Integer::sum));
      return counts;
    }).toList();
  }

  public CpuTopology topology() {
    return topology;
  }

  /**
   * @param available the CPUs that may be handed out
   * @param count how many to take
   * @throws InsufficientCpus when {@code available} holds fewer than {@code count}
   */
  public CpuSet allocate(CpuSet available, int count) {
    return allocate(available, count, null);
  }

  /**
   * Like {@link #allocate}, but one thread of every physical core before a second thread of any:
   * the CPUs go to as many cores as the chosen sockets and nodes have. Among cores equally used,
   * cores no one else uses come first, so that other allocations' cores are not split.
   *
   * @param alongside CPUs the caller already holds (a growing set), whose cores count as used
   */
  public CpuSet allocateSpread(CpuSet available, int count, CpuSet alongside) {
    return allocate(available, count, alongside);
  }

  /** {@code spreadAlongside} null packs whole cores; otherwise spreads, counting those CPUs as used. */
  private CpuSet allocate(CpuSet available, int count, CpuSet spreadAlongside) {
    CpuSet free = available.intersect(topology.online());
    if (count < 0) {
      throw new IllegalArgumentException("cannot allocate %d CPUs".formatted(count));
    }
    if (free.size() < count) {
      throw new InsufficientCpus(count, free);
    }
    if (count == 0) {
      return CpuSet.EMPTY;
    }
    List<Cpu> cpus = free.stream().mapToObj(topology::cpu).toList();
    return take(cpus, count, 0, spreadAlongside == null ? null : new Spread(free, spreadAlongside));
  }

  /** What spreading knows beyond the candidates of one group: everything free, and the CPUs held already. */
  private record Spread(CpuSet free, CpuSet alongside) {}

  /** Raised when a request cannot be met; the message names the request and what was free. */
  public static final class InsufficientCpus extends RuntimeException {
    InsufficientCpus(int count, CpuSet free) {
      super("not enough free CPUs: %d requested, %d free (%s)".formatted(count, free.size(), free));
    }
  }

  private CpuSet take(List<Cpu> free, int count, int level, Spread spread) {
    if (count == 0) {
      return CpuSet.EMPTY;
    }
    if (level == levels.size()) {
      return spread == null ? takeCores(free, count) : spreadCores(free, count, spread);
    }
    Map<Long, List<Cpu>> groups = group(free, levels.get(level)::keyOf);
    Map<Long, Integer> sizes = this.sizes.get(level);
    CpuSet taken = CpuSet.EMPTY;
    int remaining = count;
    // Whole groups (sockets, nodes) that are completely free and fit entirely.
    for (Map.Entry<Long, List<Cpu>> group : groups.entrySet()) {
      int size = group.getValue().size();
      if (size == sizes.get(group.getKey()) && size <= remaining) {
        taken = taken.union(ids(group.getValue()));
        remaining -= size;
      }
    }
    // Then the tightest group that can hold the rest, else the fullest ones in turn.
    CpuSet already = taken;
    List<List<Cpu>> candidates = groups.values().stream()
        .map(g -> g.stream().filter(c -> !already.contains(c.id())).toList())
        .filter(g -> !g.isEmpty())
        .toList();
    int need = remaining;
    List<List<Cpu>> ranked = new ArrayList<>(candidates);
    ranked.sort(Comparator.<List<Cpu>>comparingInt(g -> g.size() >= need ? 0 : 1)
        .thenComparingInt(g -> g.size() >= need ? g.size() : -g.size()));
    for (List<Cpu> group : ranked) {
      if (remaining == 0) {
        break;
      }
      CpuSet part = take(group, Math.min(remaining, group.size()), level + 1, spread);
      taken = taken.union(part);
      remaining -= part.size();
    }
    return taken;
  }

  /** Whole free cores first, then threads of partly used cores, then threads of whole ones. */
  private CpuSet takeCores(List<Cpu> free, int count) {
    Map<Long, List<Cpu>> cores = group(free, Cpu::coreKey);
    Map<Long, CpuSet> all = topology.cores();
    CpuSet taken = CpuSet.EMPTY;
    int remaining = count;
    for (Map.Entry<Long, List<Cpu>> core : cores.entrySet()) {
      int size = core.getValue().size();
      if (size == all.get(core.getKey()).size() && size <= remaining) {
        taken = taken.union(ids(core.getValue()));
        remaining -= size;
      }
    }
    CpuSet already = taken;
    List<Cpu> threads = new ArrayList<>(free.stream().filter(c -> !already.contains(c.id())).toList());
    threads.sort(Comparator.<Cpu>comparingInt(c -> cores.get(c.coreKey()).size() == all.get(c.coreKey()).size() ? 1 : 0)
        .thenComparingInt(Cpu::id));
    for (int i = 0; i < remaining; i++) {
      taken = taken.union(CpuSet.of(threads.get(i).id()));
    }
    return taken;
  }

  /**
   * One CPU at a time: a thread of the core holding fewest of the CPUs taken so far (and those held
   * alongside), among those cores the one no one else uses, then the lowest id.
   */
  private CpuSet spreadCores(List<Cpu> free, int count, Spread spread) {
    Map<Long, Integer> held = new HashMap<>();
    spread.alongside().intersect(topology.online()).stream().forEach(id -> held.merge(topology.cpu(id).coreKey(), 1, Integer::sum));
    // Whether someone else holds a thread of the core does not change while this call takes CPUs: worked out once.
    CpuSet ours = spread.free().union(spread.alongside());
    Map<Long, Integer> othersOnCore = new HashMap<>();
    free.forEach(c -> othersOnCore.computeIfAbsent(c.coreKey(), core -> topology.cores().get(core).minus(ours).isEmpty() ? 0 : 1));
    List<Cpu> left = new ArrayList<>(free);
    CpuSet taken = CpuSet.EMPTY;
    for (int i = 0; i < count; i++) {
      Cpu next = left.stream().min(Comparator.<Cpu>comparingInt(c -> held.getOrDefault(c.coreKey(), 0))
          .thenComparingInt(c -> othersOnCore.get(c.coreKey()))
          .thenComparingInt(Cpu::id)).orElseThrow();
      left.remove(next);
      held.merge(next.coreKey(), 1, Integer::sum);
      taken = taken.union(CpuSet.of(next.id()));
    }
    return taken;
  }

  private static Map<Long, List<Cpu>> group(List<Cpu> cpus, ToLongFunction<Cpu> key) {
    Map<Long, List<Cpu>> groups = new TreeMap<>();
    cpus.forEach(c -> groups.computeIfAbsent(key.applyAsLong(c), k -> new ArrayList<>()).add(c));
    return groups;
  }

  private static CpuSet ids(List<Cpu> cpus) {
    return CpuSet.of(cpus.stream().mapToInt(Cpu::id));
  }
}
