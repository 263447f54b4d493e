package io.crigate.policy;

import io.crigate.topology.Cpu;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The topology-aware policy's pools: the whole machine, then each socket, each die of a socket with
 * several dies, and each NUMA node of a socket or die with several nodes. A level that would hold
 * the same CPUs as its parent is left out, so every pool is strictly smaller than its parent.
 */
final class PoolTree {

  /** A pool: a name that survives restarts, its CPUs and its depth in the tree (root = 0). */
  record Pool(String name, CpuSet cpus, int depth) {
    boolean contains(Pool other) {
      return cpus.containsAll(other.cpus);
    }
  }

  /**
   * nri-plugins' topology levels ({@code unlimited-burstable}) and the tree depth of each. The tree
   * has no L3 cache level: {@code l3cache} is taken as the NUMA node level, the smallest it has.
   */
  static final Map<String, Integer> LEVELS = Map.of("system", 0, "package", 1, "die", 2, "numa", 3, "l3cache", 3);

  private PoolTree() {}

  /** The depth of nri-plugins' level {@code name}, empty for a name that is not one. */
  static OptionalInt depthOfLevel(String name) {
    Integer depth = LEVELS.get(name);
    return depth == null ? OptionalInt.empty() : OptionalInt.of(depth);
  }

  /**
   * The pools that stand for level {@code depth}: those at most that deep with no smaller pool at
   * most that deep inside them. A level left out of the tree (it had the same CPUs as its parent) is
   * stood for by that parent, so a one-socket machine's package level is the root.
   */
  static List<Pool> atDepth(List<Pool> pools, int depth) {
    List<Pool> upTo = pools.stream().filter(p -> p.depth() <= depth).toList();
    return upTo.stream().filter(p -> upTo.stream().noneMatch(q -> q != p && p.contains(q))).toList();
  }

  /** Every pool, the root first, parents before their children. */
  static List<Pool> build(CpuTopology topology) {
    List<Pool> pools = new ArrayList<>();
    Pool root = new Pool("root", topology.online(), 0);
    pools.add(root);
    Map<Integer, List<Cpu>> sockets = group(topology.cpus(), Cpu::packageId);
    for (var socket : sockets.entrySet()) {
      Pool socketPool = new Pool("socket" + socket.getKey(), ids(socket.getValue()), 1);
      Pool parent = addIfSmaller(pools, root, socketPool);
      Map<Integer, List<Cpu>> dies = group(socket.getValue(), Cpu::dieId);
      for (var die : dies.entrySet()) {
        Pool diePool = new Pool(socketPool.name() + "/die" + die.getKey(), ids(die.getValue()), 2);
        Pool dieParent = addIfSmaller(pools, parent, diePool);
        for (var node : group(die.getValue(), Cpu::node).entrySet()) {
          addIfSmaller(pools, dieParent, new Pool(socketPool.name() + "/node" + node.getKey(), ids(node.getValue()), 3));
        }
      }
    }
    return pools;
  }

  private static Pool addIfSmaller(List<Pool> pools, Pool parent, Pool child) {
    if (child.cpus().equals(parent.cpus())) {
      return parent;
    }
    pools.add(child);
    return child;
  }

  private static Map<Integer, List<Cpu>> group(List<Cpu> cpus, java.util.function.ToIntFunction<Cpu> key) {
    return cpus.stream().collect(Collectors.groupingBy(key::applyAsInt, TreeMap::new, Collectors.toList()));
  }

  private static CpuSet ids(List<Cpu> cpus) {
    return CpuSet.of(cpus.stream().mapToInt(Cpu::id));
  }
}
