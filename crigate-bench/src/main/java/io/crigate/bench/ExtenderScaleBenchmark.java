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
import java.util.Arrays;
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
 * For each extender: its CPU time per call and its collector's pauses during each series. With
 * {@code EXTENDER_B_JAVA_OPTS} a second extender with those JVM options added is measured the same
 * way after the first has stopped (an A/B of collectors in one run).
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
        describe(extender, "A", optionsA);
        inProcess(client, registry, all, overHttp, iterations);
        roundTrips(extender, url, all, sampled, nodes, iterations, workDir);
      }
      if (!optionsB.isBlank()) {
        // the same measures for other JVM options, after A has stopped, so that the two do not share the cores
        try (ExtenderUnderBench extender = ExtenderUnderBench.start(repository, workDir.resolve("b"), kubeconfig,
            extenderPort, registry, optionsA + " " + optionsB)) {
          if (!Arrays.equals(post(url, all), overHttp)) {
            throw new IllegalStateException("extender B answered differently from extender A");
          }
          describe(extender, "B", optionsA + " " + optionsB);
          roundTrips(extender, url, all, sampled, nodes, iterations, workDir);
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
  private static void describe(ExtenderUnderBench extender, String name, String options) throws Exception {
    System.out.printf(Locale.ROOT, "%n== extender %s: bin/crigate extender's JVM options%s%n", name,
        options.isBlank() ? "" : " + " + options.trim());
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

  /**
   * prioritize from a curl process, all names then the default sample, with the extender's CPU time
   * per call (less moved by other load than latency is) and the collector's pauses meanwhile.
   */
  private static void roundTrips(ExtenderUnderBench extender, String url, byte[] all, byte[] sampled, int nodes,
      int iterations, Path workDir) throws Exception {
    int warmup = Math.max(100, iterations / 5);
    for (var round : List.of(Map.entry("all %d NodeNames".formatted(nodes), all),
        Map.entry("500 NodeNames (default percentageOfNodesToScore)", sampled))) {
      int pausesBefore = extender.gcPausesMillis().size();
      long cpuBefore = extender.cpuNanos();
      report("HTTP round trip, " + round.getKey() + ", curl process",
          CurlPrioritize.run(url, round.getValue(), warmup, iterations, workDir));
      long cpu = extender.cpuNanos() - cpuBefore;
      List<Double> pauses = extender.gcPausesMillis();
      pauses = pauses.subList(pausesBefore, pauses.size());
      System.out.printf(Locale.ROOT, "  extender CPU per call %.2f ms (incl. warm-up); GC pauses meanwhile: %d, total %.1f ms, longest %.1f ms%n",
          cpu / 1e6 / (warmup + iterations), pauses.size(), pauses.stream().mapToDouble(Double::doubleValue).sum(),
          pauses.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }
    System.out.printf(Locale.ROOT, "resident after the round trips: peak %.0f MiB, now %.0f MiB; load average %s%n",
        extender.statusKib("VmHWM") / 1024.0, extender.statusKib("VmRSS") / 1024.0, loadAverage());
  }

  /**
   * The same informers in this process fill an index; the verb is called on it directly, with its
   * latency and the bytes it allocates per call. Its answer must equal the extender process's.
   */
  private static void inProcess(KubernetesClient client, String registry, byte[] body, byte[] overHttp, int iterations)
      throws Exception {
    LayerIndex index = new LayerIndex();
    NodeLoads loads = new NodeLoads();
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
