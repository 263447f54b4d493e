package io.crigate.scheduler.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The neighbours {@link HindsightSearch} tries from an assignment (node index per trace position,
 * -1 for a pod that was not placed). Bytes fall when pods of an image share nodes, so most moves
 * send a pod to where another pod of its image runs; moving a pod back the other way in exchange
 * keeps the load roughly where it was, which random single moves alone rarely find under a price on balance.
 * Pods before {@code firstFree} are committed ({@link LookaheadSearch}): no move changes their node.
 */
final class AssignmentMoves {

  private final int nodes;
  private final int firstFree;
  private final List<List<Integer>> sameImage = new ArrayList<>();

  AssignmentMoves(List<PodArrival> trace, int nodes, int firstFree) {
    if (firstFree < 0 || firstFree > trace.size()) {
      throw new IllegalArgumentException("the first free pod %d is not in a trace of %d".formatted(firstFree, trace.size()));
    }
    this.nodes = nodes;
    this.firstFree = firstFree;
    Map<String, List<Integer>> byImage = new HashMap<>();
    for (int i = 0; i < trace.size(); i++) {
      byImage.computeIfAbsent(trace.get(i).image(), image -> new ArrayList<>()).add(i);
    }
    trace.forEach(pod -> sameImage.add(byImage.get(pod.image())));
  }

  int[] neighbour(int[] current, SplittableRandom random) {
    int[] next = current.clone();
    int pod = random.nextInt(firstFree, next.length);
    int from = next[pod];
    switch (random.nextInt(4)) {
      case 0 -> next[pod] = followImage(current, pod, random);
      case 1 -> {
        next[pod] = followImage(current, pod, random);
        exchangeNearest(next, pod, from, random);
      }
      case 2 -> {
        int other = random.nextInt(firstFree, next.length);
        next[pod] = next[other];
        next[other] = from;
      }
      default -> next[pod] = random.nextInt(nodes);
    }
    return next;
  }

  /** The node of another pod of the same image, drawn at random; any node when none runs elsewhere. */
  private int followImage(int[] assignment, int pod, SplittableRandom random) {
    List<Integer> peers = sameImage.get(pod);
    int start = random.nextInt(peers.size());
    for (int k = 0; k < peers.size(); k++) {
      int node = assignment[peers.get((start + k) % peers.size())];
      if (node >= 0 && node != assignment[pod]) {
        return node;
      }
    }
    return random.nextInt(nodes);
  }

  /** Sends the pod nearest in the trace to {@code pod} on its new node back to {@code from}. */
  private void exchangeNearest(int[] assignment, int pod, int from, SplittableRandom random) {
    int to = assignment[pod];
    int back = from >= 0 ? from : random.nextInt(nodes);
    for (int distance = 1; distance < assignment.length; distance++) {
      for (int other : new int[] {pod - distance, pod + distance}) {
        if (other >= firstFree && other < assignment.length && assignment[other] == to) {
          assignment[other] = back;
          return;
        }
      }
    }
  }
}
