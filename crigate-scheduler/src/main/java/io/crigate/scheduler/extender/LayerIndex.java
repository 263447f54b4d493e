package io.crigate.scheduler.extender;

import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.PodLayers;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

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
 * <p>A node also counts as holding the layers a pod bound to it is still pulling ({@link ExpectedPulls}).
 *
 * <p>Updates come one node at a time from the informers; requests read under a shared lock.
 */
public final class LayerIndex {

  /** Longer than a large image takes to pull and publish; short enough that a pull that keeps failing stops counting. */
  static final Duration EXPECTED_FOR = Duration.ofMinutes(10);

  /** One distinct layer of the cluster and the numbers of the nodes that hold it. */
  private record Holders(String digest, BitSet nodes) {}

  private static final Holders[] NONE = new Holders[0];

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final NodeTable nodes;
  private final Map<String, Holders[]> layersByNode = new HashMap<>();
  private final Map<String, Holders> nodesByLayer = new HashMap<>();
  private final Deque<Integer> freeNumbers = new ArrayDeque<>();
  private final ExpectedPulls expected = new ExpectedPulls();
  private final LongSupplier nanoTime;
  private int numbered;

  /** @param nodes the table the extender's request parser and its {@link NodeLoads} use too */
  public LayerIndex(NodeTable nodes) {
    this(nodes, System::nanoTime);
  }

  LayerIndex(NodeTable nodes, LongSupplier nanoTime) {
    this.nodes = nodes;
    this.nanoTime = nanoTime;
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
      expected.settle(entry.string(), digests);
      expected.forgetExpired(nanoTime.getAsLong());
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * {@code pod} (namespace/name) is bound to {@code node} and has not started: the layers it needs
   * that the node does not hold count as held there until the node's inventory shows them (see
   * {@link ExpectedPulls}). Replaces the pod's earlier pull; a node that publishes nothing expects none.
   */
  public void expectPull(String pod, String node, PodLayers layers) {
    lock.writeLock().lock();
    try {
      expected.forget(pod);
      NodeTable.Entry entry = nodes.find(node);
      if (entry == null || entry.number < 0) {
        return;
      }
      Set<String> lacking = new LinkedHashSet<>();
      for (Layer layer : layers.layers()) {
        Holders holders = nodesByLayer.get(layer.digest());
        if (holders == null || !holders.nodes().get(entry.number)) {
          lacking.add(layer.digest());
        }
      }
      if (!lacking.isEmpty()) {
        expected.expect(pod, entry.string(), entry.number, lacking, nanoTime.getAsLong() + EXPECTED_FOR.toNanos());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** {@code pod} ended or went: its pull, if still expected, no longer counts. */
  public void forgetPull(String pod) {
    lock.writeLock().lock();
    try {
      expected.forget(pod);
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
      expected.forgetNode(entry.string());
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
   * nothing. A layer a pull is bringing to a node counts as held there. Written into {@code missing}
   * (one entry per candidate), which is returned.
   */
  long[] missingBytes(PodLayers pod, int[] numbers, long[] missing) {
    List<Layer> layers = pod.layers();
    lock.readLock().lock();
    try {
      long now = expected.isEmpty() ? 0 : nanoTime.getAsLong();
      BitSet[] holders = new BitSet[layers.size()];
      for (int i = 0; i < holders.length; i++) {
        Holders layer = nodesByLayer.get(layers.get(i).digest());
        holders[i] = layer == null ? new BitSet() : layer.nodes();
        BitSet pulling = expected.isEmpty() ? null : expected.nodesPulling(layers.get(i).digest(), now);
        if (pulling != null) {
          pulling.or(holders[i]);
          holders[i] = pulling;
        }
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
