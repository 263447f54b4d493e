package io.crigate.scheduler.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/** Generates a reproducible pod trace from a seed. */
public final class TraceGenerator {

  /** Requests drawn uniformly from these, like a mix of small services and a few heavy pods. */
  private static final int[] CPU_MILLIS = {100, 250, 250, 500, 500, 1000, 2000};
  private static final long[] MEMORY_MIB = {128, 256, 512, 512, 1024, 2048, 4096};

  private TraceGenerator() {}

  public static List<PodArrival> generate(long seed, TraceParameters params, ImageCatalog catalog) {
    SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
    double[] cumulative = zipfCumulative(catalog.images().size(), params.zipfExponent());
    // which image has which popularity rank is itself random, so rank does not follow runtime order
    List<String> ranked = new ArrayList<>(catalog.images().stream().map(i -> i.reference()).toList());
    for (int i = ranked.size() - 1; i > 0; i--) {
      Collections.swap(ranked, i, random.nextInt(i + 1));
    }
    List<PodArrival> pods = new ArrayList<>(params.pods());
    double now = 0;
    for (int i = 0; i < params.pods(); i++) {
      now += exponential(random, 1 / params.arrivalsPerSecond());
      String image = ranked.get(rankOf(cumulative, random.nextDouble()));
      int cpu = CPU_MILLIS[random.nextInt(CPU_MILLIS.length)];
      long memory = MEMORY_MIB[random.nextInt(MEMORY_MIB.length)];
      pods.add(new PodArrival(now, "pod-%05d".formatted(i), image, cpu, memory,
          exponential(random, params.meanDurationSeconds())));
    }
    return pods;
  }

  static double[] zipfCumulative(int n, double exponent) {
    double[] cumulative = new double[n];
    double sum = 0;
    for (int rank = 1; rank <= n; rank++) {
      sum += 1 / Math.pow(rank, exponent);
      cumulative[rank - 1] = sum;
    }
    for (int i = 0; i < n; i++) {
      cumulative[i] /= sum;
    }
    return cumulative;
  }

  static int rankOf(double[] cumulative, double uniform) {
    int index = Arrays.binarySearch(cumulative, uniform);
    return Math.min(cumulative.length - 1, index >= 0 ? index : -index - 1);
  }

  private static double exponential(SplittableRandom random, double mean) {
    return -mean * Math.log(1 - random.nextDouble());
  }
}
