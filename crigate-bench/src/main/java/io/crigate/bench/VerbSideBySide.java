package io.crigate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The prioritize verb's CPU a call for two builds in one JVM, in alternating blocks: each build's
 * extender classes (and their dependencies) load in a class loader of their own, each runs its
 * own build's {@link VerbWorkload} (the workload follows the extender's API), and block after block the two take turns (A B, B A, ...). Separate runs of
 * the same build differ by up to 2x on this host, whose speed drifts from minute to minute; blocks a
 * few milliseconds apart share the drift, so their ratio is what a change did.
 *
 * <p>Run: {@code bash scripts/bench-verb-side-by-side.sh <other checkout> [blocks=60]}
 */
public final class VerbSideBySide {

  private static final int CALLS_PER_BLOCK = 100;

  private VerbSideBySide() {}

  /** {@code args}: this build's and the other's dependency directories (each beside its build's crigate-bench jar), the blocks. */
  public static void main(String[] args) throws Exception {
    List<String> names = List.of("A (this checkout)", "B (" + Path.of(args[1]).getParent().getParent().getParent() + ")");
    int blocks = args.length > 2 ? Integer.parseInt(args[2]) : 60;
    List<Runnable> calls = new ArrayList<>();
    for (String dependencies : List.of(args[0], args[1])) {
      List<URL> urls = new ArrayList<>(List.of(benchJar(Path.of(dependencies).getParent()).toUri().toURL()));
      try (Stream<Path> jars = Files.list(Path.of(dependencies))) {
        for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
          urls.add(jar.toUri().toURL());
        }
      }
      ClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
      calls.add((Runnable) loader.loadClass(VerbWorkload.class.getName()).getMethod("prepare").invoke(null));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[][] cpuPerCall = new long[2][blocks - blocks / 3];
    for (int block = 0; block < blocks; block++) {
      for (int turn = 0; turn < 2; turn++) {
        int side = block % 2 == 0 ? turn : 1 - turn;
        long before = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < CALLS_PER_BLOCK; i++) {
          calls.get(side).run();
        }
        if (block >= blocks / 3) { // the first third warms both builds' code
          cpuPerCall[side][block - blocks / 3] = (threads.getCurrentThreadCpuTime() - before) / CALLS_PER_BLOCK;
        }
      }
    }
    System.out.printf(Locale.ROOT, "prioritize, %d names, in process; CPU a call over %d blocks of %d calls after %d warm-up blocks%n",
        VerbWorkload.NODES, cpuPerCall[0].length, CALLS_PER_BLOCK, blocks / 3);
    for (int side = 0; side < 2; side++) {
      long[] sorted = cpuPerCall[side].clone();
      Arrays.sort(sorted);
      System.out.printf(Locale.ROOT, "  %-40s median %.3f ms  (quartiles %.3f - %.3f)%n", names.get(side),
          sorted[sorted.length / 2] / 1e6, sorted[sorted.length / 4] / 1e6, sorted[3 * sorted.length / 4] / 1e6);
    }
    long[] ratios = new long[cpuPerCall[0].length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = 1000 * cpuPerCall[0][i] / cpuPerCall[1][i];
    }
    Arrays.sort(ratios);
    System.out.printf(Locale.ROOT, "  A / B, median of the blocks' ratios: %.3f (quartiles %.3f - %.3f)%n",
        ratios[ratios.length / 2] / 1e3, ratios[ratios.length / 4] / 1e3, ratios[3 * ratios.length / 4] / 1e3);
  }

  private static Path benchJar(Path target) throws java.io.IOException {
    try (Stream<Path> files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().matches("crigate-bench-.*\\.jar")).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no crigate-bench jar in " + target + ": build it first"));
    }
  }
}
