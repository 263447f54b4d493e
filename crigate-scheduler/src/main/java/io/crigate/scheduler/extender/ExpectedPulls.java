package io.crigate.scheduler.extender;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Layers on their way to a node: a pod bound there brings its images' layers, but the node's
 * inventory shows them only once the pull has finished and the node has published again, seconds
 * to minutes later. Until then every pod of the same image would see the node as lacking it and be
 * sent to pull it somewhere else; counting the pull as held lets the next pods follow it, as they
 * would had the inventory been instant (which is what the simulator assumes).
 *
 * <p>A pull is expected from the binding until the node's inventory holds all of its layers, the
 * pod ends or goes, the node is forgotten, or {@link LayerIndex#EXPECTED_FOR} passes (a pull that
 * keeps failing must not count forever). Not thread-safe: {@link LayerIndex} guards it with its lock.
 */
final class ExpectedPulls {

  private record Pull(String pod, String node, int number, Set<String> digests, long untilNanos) {}

  /** By pod (namespace/name): at most one pull a pod, to the node it is bound to. */
  private final Map<String, Pull> byPod = new HashMap<>();
  /** By layer digest: the pulls that bring it, few at any time (only those still running). */
  private final Map<String, List<Pull>> byLayer = new HashMap<>();

  /** {@code pod}'s pull of {@code digests} to {@code node} (its number in the index), replacing the pod's earlier one. */
  void expect(String pod, String node, int number, Set<String> digests, long untilNanos) {
    forget(pod);
    Pull pull = new Pull(pod, node, number, Set.copyOf(digests), untilNanos);
    byPod.put(pod, pull);
    pull.digests().forEach(digest -> byLayer.computeIfAbsent(digest, d -> new ArrayList<>()).add(pull));
  }

  void forget(String pod) {
    Pull pull = byPod.remove(pod);
    if (pull != null) {
      for (String digest : pull.digests()) {
        List<Pull> pulls = byLayer.get(digest);
        pulls.remove(pull);
        if (pulls.isEmpty()) {
          byLayer.remove(digest);
        }
      }
    }
  }

  /** The node published {@code held}: the pulls to it that it now shows finished are no longer expected. */
  void settle(String node, Set<String> held) {
    forgetWhere(pull -> pull.node().equals(node) && held.containsAll(pull.digests()));
  }

  /** The node is gone from the index (its number may go to another node). */
  void forgetNode(String node) {
    forgetWhere(pull -> pull.node().equals(node));
  }

  void forgetExpired(long nowNanos) {
    forgetWhere(pull -> nowNanos - pull.untilNanos() > 0);
  }

  /**
   * The numbers of the nodes an unexpired pull is bringing {@code digest} to, in a new set, or null
   * when none is. Reads only, so a reader under the index's shared lock may call it; expired pulls
   * are dropped by the next writer.
   */
  BitSet nodesPulling(String digest, long nowNanos) {
    List<Pull> pulls = byLayer.get(digest);
    if (pulls == null) {
      return null;
    }
    BitSet nodes = new BitSet();
    for (Pull pull : pulls) {
      if (nowNanos - pull.untilNanos() <= 0) {
        nodes.set(pull.number());
      }
    }
    return nodes;
  }

  boolean isEmpty() {
    return byPod.isEmpty();
  }

  private void forgetWhere(Predicate<Pull> done) {
    if (byPod.isEmpty()) {
      return;
    }
    List<String> pods = byPod.values().stream().filter(done).map(Pull::pod).toList();
    pods.forEach(this::forget);
  }
}
