package io.crigate.scheduler.extender;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.images.ImageLayers;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.NodeImageStatus;
import io.crigate.scheduler.sim.ImageCatalog;
import java.io.IOException;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Latency of {@code prioritize} for a large cluster: N nodes each holding M images drawn from a
 * catalog, a pod with an init and a regular container. Measures, in one run: upstream ImageLocality
 * over the same nodes (the baseline), the in-process verb (parse + score + write), and HTTP round
 * trips with NodeNames (nodeCacheCapable) and with a full NodeList.
 *
 * <p>Run: {@code java -cp <test classpath> io.crigate.scheduler.extender.PrioritizeBenchmark [nodes] [imagesPerNode] [iterations]}
 */
public final class PrioritizeBenchmark {

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int imagesPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    ImageCatalog catalog = ImageCatalog.generate(42, 1000);
    SplittableRandom random = new SplittableRandom(42);
    NodeTable table = new NodeTable();
    LayerIndex inventories = new LayerIndex(table);
    List<Map<String, Long>> statuses = new ArrayList<>();
    List<String> nodeNames = new ArrayList<>();
    long layersHeld = 0;
    for (int n = 0; n < nodes; n++) {
      Map<String, Long> layers = new HashMap<>();
      Map<String, Long> images = new HashMap<>();
      for (int i = 0; i < imagesPerNode; i++) {
        ImageLayers image = catalog.images().get(random.nextInt(catalog.images().size()));
        image.layers().forEach(l -> layers.put(l.digest(), l.size()));
        images.put(image.reference(), image.totalSize());
      }
      layersHeld += layers.size();
      inventories.put(new NodeLayerInventory("node-%05d".formatted(n), layers, Set.of(), Instant.now()));
      nodeNames.add("node-%05d".formatted(n));
      statuses.add(NodeImageStatus.largest(images, NodeImageStatus.DEFAULT_MAX_IMAGES));
    }
    Map<String, ImageLayers> registry = new HashMap<>();
    catalog.images().forEach(i -> registry.put(i.reference(), i));
    List<String> podImages = List.of(catalog.images().get(3).reference(), catalog.images().get(7).reference());
    System.out.printf(Locale.ROOT, "cluster: %d nodes x %d images, %.0f distinct layers per node on average%n",
        nodes, imagesPerNode, (double) layersHeld / nodes);

    Map<String, Integer> nodesWithImage = new HashMap<>();
    statuses.forEach(s -> s.keySet().forEach(name -> nodesWithImage.merge(name, 1, Integer::sum)));
    report("upstream ImageLocality, in-process score only", iterations, () -> {
      long sum = 0;
      for (Map<String, Long> status : statuses) {
        sum += ImageLocality.score(podImages, status, nodesWithImage, statuses.size());
      }
      return sum;
    });

    ObjectMapper mapper = new ObjectMapper();
    byte[] byName = mapper.writeValueAsBytes(args(mapper, podImages, nodeNames, false));
    byte[] byList = mapper.writeValueAsBytes(args(mapper, podImages, nodeNames, true));
    ExtenderJson json = new ExtenderJson(inventories.nodeTable());
    // every node's load (requests and pods) known and different, so the score takes its load-aware path; held in the
    // extender's own structure, so each candidate costs the lookup it costs in production
    NodeLoads loads = new NodeLoads(table);
    SplittableRandom requested = new SplittableRandom(7);
    for (String node : nodeNames) {
      loads.allocatable(node, 8000);
      loads.addRequested(node, requested.nextLong(8000), requested.nextInt(30));
    }
    LayerExtender extender = new LayerExtender(inventories, loads, ImageLayerSource.inMemory(registry::get));
    CallBuffers buffers = new CallBuffers();
    buffers.body.readAll(new ByteArrayInputStream(byName));
    ExtenderArgs parsed = json.parseArgs(buffers.body, buffers);
    report("LayerLocality, in-process score only", iterations, () -> extender.prioritize(parsed, buffers, true).scores().length);
    ExtenderVerbs verbs = new ExtenderVerbs(inventories, loads, registry::get);
    int[] answered = {0};
    report("LayerLocality verb in-process (parse + score + write), NodeNames", iterations, () -> {
      verbs.prioritize(new ByteArrayInputStream(byName), (bytes, offset, length) -> answered[0] = length);
      return answered[0];
    });

    try (ExtenderServer server = new ExtenderServer("127.0.0.1", 0, "/crigate", false, inventories, loads, registry::get)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize");
      report("HTTP round trip, NodeNames (%d KB request)".formatted(byName.length / 1024), iterations,
          () -> post(http, uri, byName));
      report("HTTP round trip, full NodeList (%d KB request)".formatted(byList.length / 1024), Math.max(50, iterations / 10),
          () -> post(http, uri, byList));
      outOfProcessClient("HTTP round trip, NodeNames, curl client process", uri, byName, iterations);
      // What kube-scheduler actually sends at this cluster size unless percentageOfNodesToScore is
      // raised: it stops filtering once it has this many feasible nodes, and only those reach the
      // extender.
      int sampled = feasibleNodesToFind(nodes);
      byte[] sampledByName = mapper.writeValueAsBytes(args(mapper, podImages, nodeNames.subList(0, sampled), false));
      outOfProcessClient("same, the %d candidates of the default percentageOfNodesToScore".formatted(sampled), uri,
          sampledByName, iterations);
    }
  }

  /**
   * kube-scheduler's default number of feasible nodes to find before it stops filtering (and so the
   * most candidates an extender is sent): all nodes up to 100, else an adaptive share of
   * 50% - nodes/125, at least 5%, and at least 100 nodes.
   */
  static int feasibleNodesToFind(int nodes) {
    if (nodes < 100) {
      return nodes;
    }
    int percentage = Math.max(5, 50 - nodes / 125);
    return Math.max(100, nodes * percentage / 100);
  }

  /**
   * The NodeNames round trip again, with the client in its own process as kube-scheduler is: one
   * curl process posting the request {@code iterations} times, one at a time, over one kept-alive
   * HTTP/1.1 connection, and reporting each transfer's total time in microseconds. The JDK client
   * above shares this JVM's two cores, heap and GC with the server, which a real scheduler does not.
   */
  private static void outOfProcessClient(String name, URI uri, byte[] body, int iterations) throws Exception {
    Path file = Files.createTempFile("prioritize", ".json");
    Path config = Files.createTempFile("prioritize", ".curl");
    try {
      Files.write(file, body);
      int warmup = Math.max(20, iterations / 5);
      StringBuilder transfers = new StringBuilder();
      for (int i = 0; i < warmup + iterations; i++) {
        transfers.append("url = \"").append(uri).append("\"\noutput = \"/dev/null\"\n");
      }
      Files.writeString(config, transfers);
      String out = run(List.of("curl", "--silent", "--show-error", "--fail", "--config", config.toString(),
          "--data-binary", "@" + file, "--header", "Content-Type: application/json", "--header", "Expect:",
          "--write-out", "%{time_total} %{num_connects}\\n"));
      List<String> rows = out.lines().skip(warmup).toList();
      long[] nanos = rows.stream().mapToLong(r -> Math.round(Double.parseDouble(r.split(" ")[0]) * 1e9)).sorted().toArray();
      long connects = rows.stream().mapToLong(r -> Long.parseLong(r.split(" ")[1])).sum();
      System.out.printf(Locale.ROOT, "%-70s n=%5d  p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d new connections)%n",
          name, nanos.length, nanos[nanos.length / 2] / 1e6,
          nanos[(int) Math.ceil(nanos.length * 0.99) - 1] / 1e6, nanos[nanos.length - 1] / 1e6, connects);
    } catch (IOException noCurl) {
      System.out.println("curl not found: the out-of-process round trip is not measured");
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(config);
    }
  }

  private static String run(List<String> argv) throws Exception {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed:\n" + out);
    }
    return out;
  }

  private static ObjectNode args(ObjectMapper mapper, List<String> images, List<String> nodes, boolean fullList) {
    ObjectNode root = mapper.createObjectNode();
    ObjectNode spec = root.putObject("Pod").putObject("spec");
    spec.putArray("initContainers").addObject().put("name", "init").put("image", images.get(0));
    spec.putArray("containers").addObject().put("name", "app").put("image", images.get(1));
    if (fullList) {
      ArrayNode items = root.putNull("NodeNames").putObject("Nodes").putArray("items");
      for (String node : nodes) {
        // a node object of realistic size: metadata, capacity, conditions
        ObjectNode item = items.addObject();
        item.putObject("metadata").put("name", node).put("uid", "uid-" + node)
            .putObject("labels").put("kubernetes.io/hostname", node).put("kubernetes.io/os", "linux");
        ObjectNode status = item.putObject("status");
        status.putObject("allocatable").put("cpu", "8").put("memory", "31Gi").put("pods", "110");
        status.putObject("capacity").put("cpu", "8").put("memory", "32Gi").put("pods", "110");
        status.putArray("conditions").addObject().put("type", "Ready").put("status", "True")
            .put("reason", "KubeletReady").put("message", "kubelet is posting ready status");
      }
    } else {
      root.putNull("Nodes");
      ArrayNode names = root.putArray("NodeNames");
      nodes.forEach(names::add);
    }
    return root;
  }

  private static long post(HttpClient http, URI uri, byte[] body) throws Exception {
    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("HTTP " + response.statusCode() + ": " + new String(response.body()));
    }
    return response.body().length;
  }

  interface Work {
    long run() throws Exception;
  }

  private static void report(String name, int iterations, Work work) throws Exception {
    long sink = 0;
    for (int i = 0; i < Math.max(20, iterations / 5); i++) {
      sink += work.run();
    }
    long[] nanos = new long[iterations];
    for (int i = 0; i < iterations; i++) {
      long start = System.nanoTime();
      sink += work.run();
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT, "%-70s n=%5d  p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d)%n", name, iterations,
        nanos[iterations / 2] / 1e6, nanos[(int) Math.ceil(iterations * 0.99) - 1] / 1e6, nanos[iterations - 1] / 1e6,
        sink % 10);
  }

  private PrioritizeBenchmark() {}
}
