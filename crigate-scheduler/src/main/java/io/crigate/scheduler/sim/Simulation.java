package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import java.util.function.ToDoubleFunction;

/**
 * Replays one trace against one placement. Each arrival first retires the pods that ended before it,
 * then filters nodes by requests, lets the placement choose among them (for a scorer: kube-scheduler's
 * default profile, image score + LeastAllocated + BalancedAllocation, weight 1 each, the best
 * winning and random among ties, {@link ScoredPlacement}) and starts the pod there, pulling the
 * layers the node lacks.
 *
 * @param start how long a start takes (start latency) and whether the pod holds its node meanwhile
 * @param publishDelaySeconds trace seconds from a placement until the scores see the layers it
 *     pulled (the pull and the node's next publish); 0: at once
 */
public record Simulation(int nodes, NodeShape shape, PodStart start, double publishDelaySeconds) {

  /** Starts reported at {@code bandwidthBytesPerSecond} per node, scores that see pulls at once. */
  public Simulation(int nodes, NodeShape shape, double bandwidthBytesPerSecond) {
    this(nodes, shape, PodStart.reportedOnly(bandwidthBytesPerSecond), 0);
  }

  private record Running(double endsAt, PodArrival pod, SimNode node) {}

  public SimResult run(String scorerName, long seed, List<PodArrival> trace, ImageCatalog catalog,
      IntConsumer progress) {
    return run(Placement.scored(scorerName, shape), seed, trace, catalog, progress);
  }

  /** As {@link #run(String, long, List, ImageCatalog, IntConsumer)}, with any placement. */
  public SimResult run(Placement placement, long seed, List<PodArrival> trace, ImageCatalog catalog,
      IntConsumer progress) {
    List<SimNode> cluster = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      cluster.add(new SimNode("node-%02d".formatted(i), shape, publishDelaySeconds));
    }
    SplittableRandom ties = new SplittableRandom(seed);
    PriorityQueue<Running> running = new PriorityQueue<>((a, b) -> Double.compare(a.endsAt(), b.endsAt()));
    double[] startSeconds = new double[trace.size()];
    int started = 0;
    int unschedulable = 0;
    int pulls = 0;
    long bytes = 0;
    Set<String> imageNodePairs = new HashSet<>();
    double cvSum = 0;
    double cpuCvSum = 0;
    for (int i = 0; i < trace.size(); i++) {
      PodArrival pod = trace.get(i);
      while (!running.isEmpty() && running.peek().endsAt() <= pod.atSeconds()) {
        Running done = running.poll();
        done.node().stop(done.pod(), done.endsAt());
      }
      ImageLayers image = catalog.image(pod.image());
      cluster.forEach(node -> node.at(pod.atSeconds()));
      // kube-scheduler scores only the nodes that passed the filters; the layer score compares them
      List<SimNode> candidates = cluster.stream().filter(n -> n.fits(pod)).toList();
      SimNode node = candidates.isEmpty() ? null : placement.choose(pod, image, cluster, candidates, ties);
      if (node == null) {
        unschedulable++;
      } else {
        long pulled = node.start(pod, image, pod.atSeconds());
        bytes += pulled;
        pulls += pulled > 0 ? 1 : 0;
        imageNodePairs.add(node.name + " " + pod.image());
        startSeconds[started++] = start.seconds(pulled);
        running.add(new Running(start.endsAt(pod, pulled), pod, node));
      }
      cvSum += coefficientOfVariation(cluster, n -> n.pods);
      cpuCvSum += coefficientOfVariation(cluster, n -> n.cpuMillis);
      progress.accept(i + 1);
    }
    double[] starts = Arrays.copyOf(startSeconds, started);
    Arrays.sort(starts);
    return new SimResult(placement.name(), seed, trace.size(), unschedulable, bytes, pulls,
        Arrays.stream(starts).average().orElse(0), percentile(starts, 0.95),
        trace.isEmpty() ? 0 : cvSum / trace.size(), trace.isEmpty() ? 0 : cpuCvSum / trace.size(), imageNodePairs.size());
  }

  /** Standard deviation over mean of a per-node quantity; 0 for an idle cluster. */
  static double coefficientOfVariation(List<SimNode> cluster, ToDoubleFunction<SimNode> quantity) {
    double mean = cluster.stream().mapToDouble(quantity).average().orElse(0);
    if (mean == 0) {
      return 0;
    }
    double variance = cluster.stream()
        .mapToDouble(n -> (quantity.applyAsDouble(n) - mean) * (quantity.applyAsDouble(n) - mean))
        .average().orElse(0);
    return Math.sqrt(variance) / mean;
  }

  static double percentile(double[] sorted, double fraction) {
    if (sorted.length == 0) {
      return 0;
    }
    int index = (int) Math.ceil(fraction * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
