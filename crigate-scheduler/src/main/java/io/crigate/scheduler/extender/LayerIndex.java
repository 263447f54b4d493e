package io.crigate.scheduler.extender;

import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.PodLayers;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The cluster's layer inventories inverted: per layer digest, the set of nodes holding it, as a
 * bit set over small node numbers. A request then touches one compact bit set per pod layer
 * instead of one hash table per node, which is what keeps 5,000 nodes within a few milliseconds
 * (probing 5,000 separate tables is dominated by cache misses).
 *
 * <p>Only what the score reads is kept: a digest is stored once for the whole cluster, however
 * many nodes hold it (5,000 nodes of ~200 layers each publish a million digests, but a cluster runs
 * a few thousand distinct layers), and a node keeps references to the holder sets of its layers so
 * that an update can take it out of them. Sizes are not kept: the pod's layer sizes come from its
 * registry.
 *
 * <p>Each node's number is kept in its {@link NodeTable} entry, which a request's parse has found
 * already: a call reads the candidates' numbers with their loads, and costs no lookup here.
 *
 * <p>Updates come one node at a time from the informer; requests read under a shared lock.
 */
public final class LayerIndex {

  /** One distinct layer of the cluster and the numbers of the nodes that hold it. */
  private record Holders(String digest, BitSet nodes) {}

  private static final Holders[] NONE = new Holders[0];

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final NodeTable nodes;
  private final Map<String, Holders[]> layersByNode = new HashMap<>();
  private final Map<String, Holders> nodesByLayer = new HashMap<>();
  private final Deque<Integer> freeNumbers = new ArrayDeque<>();
  private int numbered;

  /** @param nodes the table the extender's request parser and its {@link NodeLoads} use too */
  public LayerIndex(NodeTable nodes) {
    this.nodes = nodes;
  }

  public void put(NodeLayerInventory inventory) {
    lock.writeLock().lock();
    try {
      remove(inventory.node(), false);
      NodeTable.Entry entry = nodes.update(inventory.node(), unnumbered -> {
        if (unnumbered.number < 0) {
          unnumbered.number = freeNumbers.isEmpty() ? numbered : freeNumbers.pop();
          numbered++;
        }
      });
      Set<String> digests = inventory.layers().keySet();
      Holders[] layers = new Holders[digests.size()];
      int i = 0;
      for (String digest : digests) {
        layers[i] = nodesByLayer.computeIfAbsent(digest, d -> new Holders(d, new BitSet()));
        layers[i++].nodes().set(entry.number);
      }
      layersByNode.put(entry.string(), layers);
    } finally {
      lock.writeLock().unlock();
    }
  }

  public void remove(String node) {
    lock.writeLock().lock();
    try {
      remove(node, true);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Takes the node out of its layers' holder sets, and, when it is to be forgotten, gives its number back. */
  private void remove(String node, boolean forget) {
    NodeTable.Entry entry = nodes.find(node);
    if (entry == null || entry.number < 0) {
      return;
    }
    int number = entry.number;
    for (Holders layer : layersByNode.getOrDefault(entry.string(), NONE)) {
      layer.nodes().clear(number);
      if (layer.nodes().isEmpty()) {
        nodesByLayer.remove(layer.digest());
      }
    }
    layersByNode.remove(entry.string());
    if (forget) {
      nodes.update(node, gone -> gone.number = -1);
      freeNumbers.push(number);
      numbered--;
    }
  }

  /** The table whose entries this index numbers, which the extender's request parser resolves names in. */
  NodeTable nodeTable() {
    return nodes;
  }

  boolean publishes(String node) {
    lock.readLock().lock();
    try {
      NodeTable.Entry entry = nodes.find(node);
      return entry != null && entry.number >= 0;
    } finally {
      lock.readLock().unlock();
    }
  }

  int nodes() {
    lock.readLock().lock();
    try {
      return numbered;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Per candidate, by its number ({@link NodeTable.Entry#number}, -1 for a node that publishes
   * nothing), the bytes of the pod's layers it does not hold; all of them for a node that publishes
   * nothing. Written into {@code missing} (one entry per candidate), which is returned.
   */
  long[] missingBytes(PodLayers pod, int[] numbers, long[] missing) {
    List<Layer> layers = pod.layers();
    lock.readLock().lock();
    try {
      BitSet[] holders = new BitSet[layers.size()];
      for (int i = 0; i < holders.length; i++) {
        Holders layer = nodesByLayer.get(layers.get(i).digest());
        holders[i] = layer == null ? new BitSet() : layer.nodes();
      }
      for (int c = 0; c < missing.length; c++) {
        int number = numbers[c];
        missing[c] = pod.totalBytes();
        for (int i = 0; number >= 0 && i < holders.length; i++) {
          if (holders[i].get(number)) {
            missing[c] -= layers.get(i).size();
          }
        }
      }
      return missing;
    } finally {
      lock.readLock().unlock();
    }
  }
}
