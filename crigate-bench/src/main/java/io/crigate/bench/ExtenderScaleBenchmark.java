package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.images.ImageLayers;
import io.crigate.images.NodeImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.extender.ExtenderVerbs;
import io.crigate.scheduler.extender.InventoryInformer;
import io.crigate.scheduler.extender.LayerIndex;
import io.crigate.scheduler.extender.NodeLoadInformer;
import io.crigate.scheduler.extender.NodeLoads;
import io.crigate.scheduler.extender.NodeTable;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The extender at cluster scale (issue 18): fabric8's mock API server holding 5,000 Nodes and
 * 5,000 NodeImageLayers in CRUD mode and 150,000 Pods as pre-serialised pages ({@link PodListDispatcher}); {@code bin/crigate extender} started against it
 * as its own process. Measures the time until it serves (its informers' initial lists), its live
 * heap after a full GC (class histogram), its peak resident memory, and {@code prioritize} with all
 * 5,000 nodes as candidates from a curl process, beside the same verb called in this process on an
 * index the same informers filled (the baseline without HTTP), with the bytes it allocates per call.
 * Each extender is warmed until its JIT compilers go quiet; then for each its latency, its CPU time
 * per call split by thread group (HTTP, GC, JIT, informer, other; {@link ProcessCpu}) and its
 * collector's pauses over the timed series. With {@code EXTENDER_B_REPOSITORY} (another checkout)
 * or {@code EXTENDER_B_JAVA_OPTS} a second extender runs beside the first, and their timed series
 * interleave in chunks, so that both are measured on the same machine in the same minutes;
 * {@code EXTENDER_JFR} records each one's series and prints where its time went.
 *
 * <p>The pod's two images are pushed to a real registry ({@code CRIGATE_REGISTRY}), since the
 * extender resolves layers there. Usage: {@code ExtenderScaleBenchmark <workDir> [nodes=5000]
 * [pods=150000] [iterations=1000] [apiPort=27001] [extenderPort=27002]}; run by
 * {@code scripts/bench-extender-scale.sh}.
 */
public final class ExtenderScaleBenchmark {

  /** The mock server logs every request at INFO through java.util.logging; kept referenced so the level sticks. */
  private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private ExtenderScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path workDir = Path.of(args[0]);
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    int pods = args.length > 2 ? Integer.parseInt(args[2]) : 150_000;
    int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    int apiPort = args.length > 4 ? Integer.parseInt(args[4]) : 27001;
    int extenderPort = args.length > 5 ? Integer.parseInt(args[5]) : 27002;
    // extender A is bin/crigate's as shipped, plus these (e.g. a profiler); B adds its own after A's
    String optionsA = System.getenv().getOrDefault("EXTENDER_JAVA_OPTS", "");
    String optionsB = System.getenv().getOrDefault("EXTENDER_B_JAVA_OPTS", "");
    // B: another checkout's bin/crigate (e.g. a worktree of main), or A's with optionsB added
    String repositoryB = System.getenv().getOrDefault("EXTENDER_B_REPOSITORY", "");
    String registry = System.getenv().getOrDefault("CRIGATE_REGISTRY", "127.0.0.1:5000");
    Files.createDirectories(workDir);
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    System.out.printf(Locale.ROOT, "cluster: %d nodes, %d NodeImageLayers, %d pods; load average %s%n",
        nodes, nodes, pods, loadAverage());

    var dispatcher = new KubernetesCrudDispatcher(List.of(CustomResourceDefinitionContext.fromCustomResourceType(NodeImageLayers.class)));
    var podList = new PodListDispatcher(dispatcher);
    var api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), podList, false);
    ScaleCluster cluster = new ScaleCluster(registry);
    long start = System.nanoTime();
    cluster.populate(dispatcher, podList, nodes, 100, pods);
    System.out.printf(Locale.ROOT, "mock API server populated in %.1f s: %d objects in the CRUD store, %d pods in the paged list%n",
        (System.nanoTime() - start) / 1e9, dispatcher.getMap().size(), podList.size());
    api.init(InetAddress.getLoopbackAddress(), apiPort);
    try (KubernetesClient client = api.createClient(b -> b.withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(
        io.fabric8.kubernetes.client.Config.empty()).withMasterUrl("http://127.0.0.1:" + apiPort).withRequestTimeout(600_000)
        .build())); ManifestPush push = new ManifestPush(registry)) {
      for (ImageLayers image : cluster.podImages()) {
        push.push(image, cluster::blob);
      }
      Path kubeconfig = Files.writeString(workDir.resolve("kubeconfig"), """
          apiVersion: v1
          kind: Config
          clusters: [{name: mock, cluster: {server: "http://127.0.0.1:%d"}}]
          users: [{name: bench, user: {token: bench}}]
          contexts: [{name: mock, context: {cluster: mock, user: bench}}]
          current-context: mock
          """.formatted(apiPort));
      byte[] all = cluster.prioritizeRequest(cluster.nodeNames()).getBytes(StandardCharsets.UTF_8);
      byte[] sampled = cluster.prioritizeRequest(cluster.nodeNames().subList(0, Math.min(500, nodes))).getBytes(StandardCharsets.UTF_8);
      String url = "http://127.0.0.1:%d/crigate/prioritize".formatted(extenderPort);

      Path repository = Path.of("").toAbsolutePath();
      byte[] overHttp;
      try (ExtenderUnderBench extender = ExtenderUnderBench.start(repository, workDir.resolve("a"), kubeconfig,
          extenderPort, registry, optionsA)) {
        overHttp = post(url, all);
        describe(extender, "A", repository, optionsA);
        inProcess(client, registry, all, overHttp, iterations);
        List<Side> sides = new ArrayList<>(List.of(new Side("A", extender, url, workDir.resolve("a"))));
        ExtenderUnderBench b = null;
        try {
          if (!repositoryB.isBlank() || !optionsB.isBlank()) {
            // B beside A, both serving: their timed series interleave, so that both see the same machine
            Path checkoutB = repositoryB.isBlank() ? repository : Path.of(repositoryB).toAbsolutePath();
            String urlB = "http://127.0.0.1:%d/crigate/prioritize".formatted(extenderPort + 1);
            b = ExtenderUnderBench.start(checkoutB, workDir.resolve("b"), kubeconfig, extenderPort + 1, registry,
                optionsA + " " + optionsB);
            if (!Arrays.equals(post(urlB, all), overHttp)) {
              throw new IllegalStateException("extender B answered differently from extender A");
            }
            describe(b, "B", checkoutB, optionsA + " " + optionsB);
            sides.add(new Side("B", b, urlB, workDir.resolve("b")));
          }
          roundTrips(sides, all, sampled, nodes, iterations, workDir);
        } finally {
          if (b != null) {
            b.close();
          }
        }
      }
    } finally {
      try {
        api.destroy();
      } catch (IllegalStateException busy) {
        System.out.println("mock API server did not stop within its timeout: " + busy.getMessage());
      }
    }
    // the mock server's event loops are not daemon threads
    System.exit(0);
  }

  /** Time to serve, live heap, resident memory. */
  private static void describe(ExtenderUnderBench extender, String name, Path checkout, String options) throws Exception {
    System.out.printf(Locale.ROOT, "%n== extender %s: %s/bin/crigate extender (commit %s), its JVM options%s%n", name,
        checkout, commit(checkout), options.isBlank() ? "" : " + " + options.trim());
    System.out.printf(Locale.ROOT, "crigate extender (pid %d): serving %.1f s after launch (JVM start + initial lists)%n",
        extender.process().pid(), extender.startToServing().toMillis() / 1e3);
    String histogram = extender.classHistogram();
    Files.writeString(extender.log().resolveSibling("class-histogram.txt"), histogram);
    System.out.println("live heap after a full GC (jcmd GC.class_histogram), largest classes:");
    histogram.lines().skip(1).limit(14).forEach(System.out::println);
    histogram.lines().filter(l -> l.startsWith("Total")).forEach(System.out::println);
    System.out.printf(Locale.ROOT, "resident: peak (VmHWM) %.0f MiB, now (VmRSS) %.0f MiB%n",
        extender.statusKib("VmHWM") / 1024.0, extender.statusKib("VmRSS") / 1024.0);
  }

  /** One extender under measurement and what its timed series gathered. */
  private static final class Side {
    final String name;
    final ExtenderUnderBench extender;
    final String url;
    final Path dir;
    Samples samples = new Samples();
    /** Calls 2 to {@link CurlPrioritize#OPENING_CALLS} of each new connection, kept out of {@link #samples}. */
    Samples opening = new Samples();
    Map<ProcessCpu.Group, Long> cpu = new EnumMap<>(ProcessCpu.Group.class);
    final List<Double> pauses = new ArrayList<>();

    Side(String name, ExtenderUnderBench extender, String url, Path dir) {
      this.name = name;
      this.extender = extender;
      this.url = url;
      this.dir = dir;
    }

    void reset() {
      samples = new Samples();
      opening = new Samples();
      cpu = new EnumMap<>(ProcessCpu.Group.class);
      pauses.clear();
    }
  }

  /** Warm-up batches of this many calls, until the JIT compilers go quiet. */
  private static final int WARMUP_BATCH = 100;
  /**
   * Calls before the quiet test counts. Most of a call's methods (the HTTP codec's, the handler's,
   * the verb's outer ones) run once per call, and C2 takes a method from its profiled C1 code only
   * after 5,000 invocations ({@code Tier4InvocationThreshold}). Before that the compilers pause
   * between the C1 and the C2 waves: with 3,000 calls at most, the test passed in that lull at
   * 2,800 calls and the C2 wave came during the timed series (PrintCompilation: Netty's HTTP
   * methods compiled at tier 4 throughout it; JIT threads ~12% of the series' CPU).
   */
  private static final int WARMUP_MIN = 8000;
  private static final int WARMUP_LIMIT = 20000;
  /** The timed series of each extender is cut into this many runs, which alternate between the extenders. */
  private static final int CHUNKS = 10;

  /**
   * prioritize from a curl process, all names then the default sample: each extender warmed until
   * its compiler threads stop using CPU, then the timed series of all extenders interleaved in
   * chunks (A B, B A, ...), with each extender's CPU per call by thread group and its collector's
   * pauses over its own chunks.
   */
  private static void roundTrips(List<Side> sides, byte[] all, byte[] sampled, int nodes, int iterations,
      Path workDir) throws Exception {
    boolean jfr = !System.getenv().getOrDefault("EXTENDER_JFR", "").isBlank()
        && !System.getenv().getOrDefault("EXTENDER_JFR", "").equals("0");
    for (var round : List.of(Map.entry("all %d NodeNames".formatted(nodes), all),
        Map.entry("500 NodeNames (default percentageOfNodesToScore)", sampled))) {
      System.out.printf(Locale.ROOT, "%n-- HTTP round trips, %s, curl process; load average %s%n", round.getKey(), loadAverage());
      for (Side side : sides) {
        warmUntilCompilersQuiet(side, round.getValue(), workDir);
        side.reset();
      }
      boolean recording = jfr && round.getValue() == all;
      if (recording) {
        for (Side side : sides) {
          side.extender.startRecording(side.dir.resolve("series.jfr"));
        }
      }
      String loadBefore = loadAverage();
      System.out.printf(Locale.ROOT, "  timed series from %s%n", java.time.Instant.now());
      int perChunk = Math.max(1, iterations / CHUNKS);
      for (int chunk = 0; chunk < CHUNKS; chunk++) {
        for (int i = 0; i < sides.size(); i++) {
          Side side = sides.get(chunk % 2 == 0 ? i : sides.size() - 1 - i);
          int pausesBefore = side.extender.gcPausesMillis().size();
          var before = side.extender.threads();
          // each curl run opens a connection: its opening calls are reported apart (CurlPrioritize)
          CurlPrioritize.Transfers transfers = CurlPrioritize.run(side.url, round.getValue(), perChunk, workDir);
          var after = side.extender.threads();
          ProcessCpu.byGroup(before, after).forEach((group, nanos) -> side.cpu.merge(group, nanos, Long::sum));
          side.samples.addAll(transfers.kept());
          side.opening.addAll(transfers.opening());
          List<Double> pauses = side.extender.gcPausesMillis();
          side.pauses.addAll(pauses.subList(pausesBefore, pauses.size()));
        }
      }
      String loadAfter = loadAverage();
      if (recording) {
        for (Side side : sides) {
          side.extender.stopRecording();
        }
      }
      for (Side side : sides) {
        report("extender " + side.name + ", HTTP round trip, " + round.getKey(), side.samples);
        report("  the same, calls 2-%d of each of its %d new connections".formatted(CurlPrioritize.OPENING_CALLS, CHUNKS), side.opening);
        int calls = side.samples.count() + side.opening.count() + CHUNKS; // the connections' first calls too
        long total = side.cpu.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder groups = new StringBuilder();
        side.cpu.forEach((group, nanos) -> groups.append(String.format(Locale.ROOT, " %s %.3f", group.name().toLowerCase(Locale.ROOT), nanos / 1e6 / calls)));
        System.out.printf(Locale.ROOT, "  extender %s CPU per call %.3f ms (timed series only):%s%n", side.name, total / 1e6 / calls, groups);
        double[] pauses = side.pauses.stream().mapToDouble(Double::doubleValue).toArray();
        long[] sorted = side.samples.values(side.samples.count());
        Arrays.sort(sorted);
        // each pause stops at most the one call in flight: without the slowest calls, as many as there
        // were pauses, is what the p99 would be if no pause had hit a call (at most)
        long[] unhit = Arrays.copyOf(sorted, Math.max(1, sorted.length - pauses.length));
        System.out.printf(Locale.ROOT, "  GC pauses during the series: %d, total %.1f ms, longest %.1f ms; p99 without the %d slowest calls %.2f ms%n",
            pauses.length, Arrays.stream(pauses).sum(), Arrays.stream(pauses).max().orElse(0), pauses.length,
            Samples.of(unhit).percentileMicros(99) / 1e3);
      }
      System.out.printf(Locale.ROOT, "  load average before the series %s, after %s%n", loadBefore, loadAfter);
      if (recording) {
        for (Side side : sides) {
          profile(side, side.dir.resolve("series.jfr"));
        }
      }
    }
    for (Side side : sides) {
      System.out.printf(Locale.ROOT, "extender %s resident after the round trips: peak %.0f MiB, now %.0f MiB; load average %s%n",
          side.name, side.extender.statusKib("VmHWM") / 1024.0, side.extender.statusKib("VmRSS") / 1024.0, loadAverage());
    }
  }

  /**
   * Batches of calls, {@link #WARMUP_MIN} at least, until the compiler threads used less than 5% of
   * the process's CPU (or 2 ms) in two batches in a row: the timed series then measures compiled
   * code, however long that took on this machine, rather than after a count that a loaded machine
   * may not have compiled by. (In a
   * 300-node trial they never got below 2%: C2 keeps recompiling a little.)
   */
  private static void warmUntilCompilersQuiet(Side side, byte[] body, Path workDir) throws Exception {
    int calls = 0;
    int quiet = 0;
    long jit = 0;
    long total = 0;
    while (calls < WARMUP_MIN || (calls < WARMUP_LIMIT && quiet < 2)) {
      var before = side.extender.threads();
      CurlPrioritize.run(side.url, body, WARMUP_BATCH - CurlPrioritize.OPENING_CALLS, workDir);
      var groups = ProcessCpu.byGroup(before, side.extender.threads());
      calls += WARMUP_BATCH;
      jit = groups.get(ProcessCpu.Group.JIT);
      total = groups.values().stream().mapToLong(Long::longValue).sum();
      quiet = jit < Math.max(total / 20, 2_000_000L) ? quiet + 1 : 0;
    }
    System.out.printf(Locale.ROOT, "  extender %s warmed with %d calls (last batch: compilers %.1f ms of %.1f ms CPU)%s%n",
        side.name, calls, jit / 1e6, total / 1e6, quiet < 2 ? "; the compilers never went quiet" : "");
  }

  /** Where the series' time went in the extender: JFR's views of the recording (hot methods, pauses, allocation). */
  private static void profile(Side side, Path recording) throws Exception {
    Path jfr = Path.of(System.getProperty("java.home"), "bin", "jfr");
    for (String view : List.of("hot-methods", "gc-pauses", "allocation-by-class")) {
      Process run = new ProcessBuilder(jfr.toString(), "view", "--width", "160", view, recording.toString())
          .redirectErrorStream(true).start();
      List<String> lines = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      run.waitFor();
      System.out.printf(Locale.ROOT, "  extender %s, JFR %s (%s):%n", side.name, view, recording);
      lines.stream().limit(30).forEach(line -> System.out.println("    " + line));
    }
  }

  private static String commit(Path checkout) {
    try {
      Process git = new ProcessBuilder("git", "-C", checkout.toString(), "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return git.waitFor() == 0 ? out : "unknown";
    } catch (java.io.IOException | InterruptedException e) {
      return "unknown";
    }
  }

  /**
   * The same informers in this process fill an index; the verb is called on it directly, with its
   * latency and the bytes it allocates per call. Its answer must equal the extender process's.
   */
  private static void inProcess(KubernetesClient client, String registry, byte[] body, byte[] overHttp, int iterations)
      throws Exception {
    NodeTable nodes = new NodeTable();
    LayerIndex index = new LayerIndex(nodes);
    NodeLoads loads = new NodeLoads(nodes);
    long start = System.nanoTime();
    try (InventoryInformer inventories = new InventoryInformer(client, index);
        NodeLoadInformer load = new NodeLoadInformer(client, loads)) {
      System.out.printf(Locale.ROOT, "in-process informers synced in %.1f s%n", (System.nanoTime() - start) / 1e9);
      RegistryClient images = new RegistryClient(RegistryClientConfig.defaults().withAllowedRegistries(Set.of(registry)));
      ExtenderVerbs verbs = new ExtenderVerbs(index, loads, images::layers);
      ObjectMapper mapper = new ObjectMapper();
      if (!mapper.readTree(verbs.prioritize(body)).equals(mapper.readTree(overHttp))) {
        throw new IllegalStateException("the extender process answered differently from the verb in process");
      }
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      // as the HTTP server calls it: the body streamed in, the answer handed over from the call's buffer
      ExtenderVerbs.AnswerSink discard = (bytes, offset, length) -> { };
      for (int i = 0; i < Math.max(100, iterations / 5); i++) {
        verbs.prioritize(new ByteArrayInputStream(body), discard);
      }
      Samples samples = new Samples();
      long cpu = threads.getCurrentThreadCpuTime();
      long allocated = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < iterations; i++) {
        long t = System.nanoTime();
        verbs.prioritize(new ByteArrayInputStream(body), discard);
        samples.add(System.nanoTime() - t);
      }
      allocated = threads.getCurrentThreadAllocatedBytes() - allocated;
      cpu = threads.getCurrentThreadCpuTime() - cpu;
      report("verb in process (parse + score + write), all NodeNames", samples);
      System.out.printf(Locale.ROOT, "  CPU per call %.2f ms; allocated per call: %.1f KB%n", cpu / 1e6 / iterations,
          allocated / 1024.0 / iterations);
    }
  }

  private static byte[] post(String url, byte[] body) throws Exception {
    HttpResponse<byte[]> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("prioritize: HTTP " + response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8));
    }
    return response.body();
  }

  private static void report(String what, Samples samples) {
    System.out.printf(Locale.ROOT, "%-80s n=%d  p50 %.2f ms  p99 %.2f ms  max %.2f ms%n", what, samples.count(),
        samples.percentileMicros(50) / 1e3, samples.percentileMicros(99) / 1e3, samples.percentileMicros(100) / 1e3);
  }

  private static String loadAverage() throws java.io.IOException {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
