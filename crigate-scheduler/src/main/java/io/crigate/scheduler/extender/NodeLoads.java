package io.crigate.scheduler.extender;

import io.crigate.scheduler.NodeLoad;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Each node's load, kept in the node's {@link NodeTable} entry: a prioritize call reads every
 * candidate's, and the request's parse has found the entries already. Requested and allocatable CPU
 * and the pod count sit together in one {@link NodeLoad}. Written by {@link NodeLoadInformer}; read
 * by {@link LayerExtender}.
 *
 * <p>Besides what the informer counts, the load includes the pods the extender has just scored and
 * whose binding the informer has not shown yet, each on the node it most likely went to. A burst of
 * pods is scored faster than bindings travel from kube-scheduler through the API server to the
 * informer; without this every pod of the burst would see the load from before the burst, and
 * the node holding their image would stay everyone's alternative until the informer caught up.
 * A pod counts this way until the informer sees it bound, finished or deleted, or for
 * {@link #ASSUMED_FOR} at most (a pod that was never bound: kube-scheduler retries and scores it again).
 */
public final class NodeLoads implements Function<String, NodeLoad> {

  /** Far longer than a binding takes to reach the informer; short enough that a lost one does no lasting harm. */
  static final Duration ASSUMED_FOR = Duration.ofSeconds(30);

  private record Assumed(String node, long cpuMillis, long untilNanos) {}

  /** What the assumed pods on one node add: their requests and how many they are. */
  record Extra(long cpuMillis, int pods) {}

  private final NodeTable nodes;
  /** Guarded by this: each assumed pod, by namespace/name. */
  private final Map<String, Assumed> assumed = new HashMap<>();
  private final LongSupplier nanoTime;

  /** @param nodes the table the extender's request parser and its {@link LayerIndex} use too */
  public NodeLoads(NodeTable nodes) {
    this(nodes, System::nanoTime);
  }

  NodeLoads(NodeTable nodes, LongSupplier nanoTime) {
    this.nodes = nodes;
    this.nanoTime = nanoTime;
  }

  /** The table whose entries hold these loads. */
  NodeTable nodeTable() {
    return nodes;
  }

  /** The node's load, or {@link NodeLoad#UNKNOWN} for a node not (yet) seen or without allocatable CPU. */
  @Override
  public NodeLoad apply(String node) {
    NodeTable.Entry entry = nodes.find(node);
    return entry == null ? NodeLoad.UNKNOWN : of(entry);
  }

  /** As {@link #apply(String)}, for a node whose entry the caller has found. */
  NodeLoad of(NodeTable.Entry node) {
    NodeLoad load = node.load;
    if (!load.known()) {
      return load;
    }
    Extra extra = node.assumed;
    return extra == null ? load
        : new NodeLoad(load.requestedMillis() + extra.cpuMillis(), load.allocatableMillis(), load.pods() + extra.pods());
  }

  /** 0 when the node is gone: its load is unknown again, while the pods still bound to it keep counting. */
  public void allocatable(String node, long millis) {
    nodes.update(node, entry -> entry.load = new NodeLoad(entry.load.requestedMillis(), millis, entry.load.pods()));
  }

  /** {@code pods} more pods (fewer when negative) bound to the node, requesting {@code millis} more CPU in all. */
  public void addRequested(String node, long millis, int pods) {
    nodes.update(node, entry ->
        entry.load = new NodeLoad(entry.load.requestedMillis() + millis, entry.load.allocatableMillis(), entry.load.pods() + pods));
  }

  /** The extender scored {@code pod} (namespace/name) and expects it on {@code node}: count it there until {@link #retract}. */
  synchronized void assume(String pod, String node, long cpuMillis) {
    drop(assumed.put(pod, new Assumed(node, cpuMillis, nanoTime.getAsLong() + ASSUMED_FOR.toNanos())));
    nodes.update(node, entry -> entry.assumed = entry.assumed == null ? new Extra(cpuMillis, 1)
        : new Extra(entry.assumed.cpuMillis() + cpuMillis, entry.assumed.pods() + 1));
  }

  /**
   * {@code pod} no longer counts where it was assumed: the informer saw it bound, finished or deleted
   * (from now on it counts as the informer says), or the extender is scoring it again.
   */
  synchronized void retract(String pod) {
    if (!assumed.isEmpty()) {
      drop(assumed.remove(pod));
    }
  }

  /** Forgets assumed pods whose binding never showed within {@link #ASSUMED_FOR}. */
  synchronized void forgetExpired() {
    long now = nanoTime.getAsLong();
    assumed.values().removeIf(a -> {
      boolean expired = now - a.untilNanos() > 0;
      if (expired) {
        subtract(a);
      }
      return expired;
    });
  }

  private void drop(Assumed before) {
    if (before != null) {
      subtract(before);
    }
  }

  private void subtract(Assumed a) {
    nodes.update(a.node(), entry -> entry.assumed = entry.assumed == null || entry.assumed.pods() == 1 ? null
        : new Extra(entry.assumed.cpuMillis() - a.cpuMillis(), entry.assumed.pods() - 1));
  }
}
