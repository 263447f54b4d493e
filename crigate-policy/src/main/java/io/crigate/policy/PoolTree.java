package io.crigate.policy;

import io.crigate.topology.Cpu;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  private PoolTree() {}

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
