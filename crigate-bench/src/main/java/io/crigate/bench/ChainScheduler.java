package io.crigate.bench;

import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.sim.HighestScore;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.ResourceScores;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.function.IntToDoubleFunction;

/**
 * kube-scheduler's scheduling cycle as the experiment runs it: its cache of the requests assumed on
 * each node (updated at once, before the binding reaches the API server), the filter by requests,
 * and the score of the default profile: NodeResourcesFit LeastAllocated + BalancedAllocation, plus
 * an image score at weight 1, the highest total winning and ties drawn at random (seeded).
 *
 * <p>The image score is, by scorer: none ({@code resources-only}); upstream ImageLocality on the
 * 50-largest image list each node reports ({@code image-locality}); or the crigate extender's
 * {@code POST /prioritize} answer over HTTP, 0..10 scaled by kube-scheduler's 100/10
 * ({@code layer-locality}). Every placement computes both image scores, whatever the scorer, and
 * uses one: the runs then differ only in where their pods go, not in the harness's own work (the
 * node image lists read, the extender called), which on a shared machine would load the nodes
 * unevenly across scorers and show in their start latencies.
 */
final class ChainScheduler {

  static final List<String> SCORERS = List.of("resources-only", "image-locality", "layer-locality");

  private final List<String> names;
  private final String scorer;
  private final IntFunction<Map<String, Long>> imageStatus;
  private final ExtenderClient extender;
  private final long cpuAllocatable;
  private final long memoryAllocatableMib;
  private final long[] cpu;
  private final long[] memory;
  private final int[] pods;
  private final SplittableRandom ties;
  private final boolean podNamesToExtender;

  /**
   * @param imageStatus node index to what it reports in {@code node.status.images} (image-locality)
   * @param extender the extender, called for every placement (its answer used by layer-locality)
   * @param podNamesToExtender false sends pods to the extender unnamed ({@link ExtenderClient#prioritize(Pod, List, boolean)})
   */
  ChainScheduler(List<String> names, String scorer, IntFunction<Map<String, Long>> imageStatus,
      ExtenderClient extender, long cpuAllocatable, long memoryAllocatableMib, long seed, boolean podNamesToExtender) {
    if (!SCORERS.contains(scorer)) {
      throw new IllegalArgumentException("unknown scorer %s; known: %s".formatted(scorer, SCORERS));
    }
    this.names = List.copyOf(names);
    this.scorer = scorer;
    this.imageStatus = imageStatus;
    this.extender = Objects.requireNonNull(extender, "the extender");
    this.cpuAllocatable = cpuAllocatable;
    this.memoryAllocatableMib = memoryAllocatableMib;
    this.cpu = new long[names.size()];
    this.memory = new long[names.size()];
    this.pods = new int[names.size()];
    this.ties = new SplittableRandom(seed);
    this.podNamesToExtender = podNamesToExtender;
  }

  /** Places and assumes the pod; returns the node's index, or -1 when no node has room. */
  synchronized int place(PodArrival arrival, Pod pod) {
    List<Integer> candidates = new ArrayList<>();
    for (int n = 0; n < names.size(); n++) {
      if (cpu[n] + arrival.cpuMillis() <= cpuAllocatable && memory[n] + arrival.memoryMib() <= memoryAllocatableMib) {
        candidates.add(n);
      }
    }
    if (candidates.isEmpty()) {
      return -1;
    }
    long[] scores = imageScores(arrival, pod, candidates);
    for (int i = 0; i < scores.length; i++) {
      int n = candidates.get(i);
      long cpuAfter = cpu[n] + arrival.cpuMillis();
      long memoryAfter = memory[n] + arrival.memoryMib();
      scores[i] += (ResourceScores.leastAllocated(cpuAfter, cpuAllocatable)
              + ResourceScores.leastAllocated(memoryAfter, memoryAllocatableMib)) / 2
          + ResourceScores.balancedAllocation((double) cpuAfter / cpuAllocatable,
              (double) memoryAfter / memoryAllocatableMib);
    }
    int best = candidates.get(HighestScore.index(scores, ties));
    cpu[best] += arrival.cpuMillis();
    memory[best] += arrival.memoryMib();
    pods[best]++;
    return best;
  }

  /** The pod on node {@code n} ended: its requests leave the cache. */
  synchronized void release(int n, PodArrival arrival) {
    cpu[n] -= arrival.cpuMillis();
    memory[n] -= arrival.memoryMib();
    pods[n]--;
  }

  /** Coefficient of variation across nodes of requested CPU. */
  synchronized double cpuCv() {
    return coefficientOfVariation(n -> cpu[n]);
  }

  /** Coefficient of variation across nodes of the pods they run. */
  synchronized double podsCv() {
    return coefficientOfVariation(n -> pods[n]);
  }

  synchronized int podsOn(int n) {
    return pods[n];
  }

  private long[] imageScores(PodArrival arrival, Pod pod, List<Integer> candidates) {
    long[] upstream = imageLocalityScores(arrival, candidates);
    long[] layers = extenderScores(pod, candidates);
    return switch (scorer) {
      case "image-locality" -> upstream;
      case "layer-locality" -> layers;
      default -> new long[candidates.size()]; // resources-only
    };
  }

  private long[] imageLocalityScores(PodArrival arrival, List<Integer> candidates) {
    List<Map<String, Long>> statuses = new ArrayList<>();
    Map<String, Integer> nodesWithImage = new HashMap<>();
    for (int n = 0; n < names.size(); n++) {
      Map<String, Long> status = imageStatus.apply(n);
      statuses.add(status);
      status.keySet().forEach(image -> nodesWithImage.merge(ImageLocality.normalizedImageName(image), 1, Integer::sum));
    }
    long[] scores = new long[candidates.size()];
    for (int i = 0; i < scores.length; i++) {
      Map<String, Long> normalized = new HashMap<>();
      statuses.get(candidates.get(i)).forEach((image, size) -> normalized.put(ImageLocality.normalizedImageName(image), size));
      scores[i] = ImageLocality.score(List.of(arrival.image()), normalized, nodesWithImage, names.size());
    }
    return scores;
  }

  private long[] extenderScores(Pod pod, List<Integer> candidates) {
    Map<String, Long> answer = extender.prioritize(pod, candidates.stream().map(names::get).toList(), podNamesToExtender);
    long[] scores = new long[candidates.size()];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = answer.getOrDefault(names.get(candidates.get(i)), 0L)
          * (ImageLocality.MAX_NODE_SCORE / LayerLocality.MAX_EXTENDER_PRIORITY);
    }
    return scores;
  }

  private double coefficientOfVariation(IntToDoubleFunction quantity) {
    double mean = 0;
    for (int n = 0; n < names.size(); n++) {
      mean += quantity.applyAsDouble(n) / names.size();
    }
    if (mean == 0) {
      return 0;
    }
    double variance = 0;
    for (int n = 0; n < names.size(); n++) {
      double d = quantity.applyAsDouble(n) - mean;
      variance += d * d / names.size();
    }
    return Math.sqrt(variance) / mean;
  }
}
