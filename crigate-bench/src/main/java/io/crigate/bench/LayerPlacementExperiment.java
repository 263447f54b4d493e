package io.crigate.bench;

import io.crigate.images.ImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import io.crigate.scheduler.sim.ResourceScores;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Places a seeded pod sequence on real containerd nodes with one scorer, pulls each pod's image on
 * the chosen node through CRI, and counts the bytes the registry served (its access log) next to the
 * bytes of layers the nodes newly hold (their inventories). The scheduler is the simulator's: filter by
 * requests, score = image score + LeastAllocated + BalancedAllocation, ties broken at random (seeded).
 * Run once per scorer on fresh nodes (scripts/experiment-layers.sh); appends one markdown row.
 */
@Command(name = "layer-placement", mixinStandardHelpOptions = true,
    description = "Real pulls on containerd nodes, placed by one image scorer.")
public final class LayerPlacementExperiment implements Callable<Integer> {

  private static final long NODE_CPU_MILLIS = 4000;
  private static final long NODE_MEMORY_MIB = 8192;
  private static final long[] CPU_MILLIS = {250, 250, 500, 500, 1000};
  private static final long[] MEMORY_MIB = {256, 512, 512, 1024};
  private static final double MB = 1e6;

  @Option(names = "--scorer", required = true, description = "resources-only, image-locality or layer-locality")
  String scorer;

  @Option(names = "--nodes", required = true, split = ",", description = "containerd CRI endpoints, unix:///...")
  List<String> endpoints;

  @Option(names = "--images", required = true, split = ",", description = "pod images, most popular first")
  List<String> images;

  @Option(names = "--registry-log", required = true, description = "docker-registry access log")
  Path registryLog;

  @Option(names = "--registry-repository", required = true, description = "repository prefix of the images")
  String repository;

  @Option(names = "--results", required = true, description = "file to append the markdown row to")
  Path results;

  @Option(names = "--pods", defaultValue = "18")
  int pods;

  @Option(names = "--seed", defaultValue = "1")
  long seed;

  record Pod(String image, long cpuMillis, long memoryMib) {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new LayerPlacementExperiment()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    if (!List.of("resources-only", "image-locality", "layer-locality").contains(scorer)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "unknown scorer " + scorer);
    }
    String registryHost = images.getFirst().substring(0, images.getFirst().indexOf('/'));
    RegistryClient registry = new RegistryClient(RegistryClientConfig.defaults().withInsecure(registryHost));
    List<ExperimentNode> nodes = new ArrayList<>();
    endpoints.forEach(endpoint -> nodes.add(new ExperimentNode(endpoint, registry)));
    long logStart = Files.size(registryLog);
    Random ties = new Random(seed + 1);
    int pulls = 0;
    long inventoryBytes = 0;
    try {
      for (Pod pod : sequence()) {
        ExperimentNode chosen = place(pod, registry.layers(pod.image()), nodes, ties);
        if (chosen == null) {
          System.err.printf("%s: no node fits %s%n", scorer, pod);
          continue;
        }
        ImageLayers layers = registry.layers(pod.image());
        pulls += chosen.hasImage(pod.image()) ? 0 : 1;
        inventoryBytes += chosen.missingBytes(layers.layers());
        chosen.pull(pod.image());
        chosen.cpuMillis += pod.cpuMillis();
        chosen.memoryMib += pod.memoryMib();
        chosen.pods++;
        System.err.printf("%s: %s -> %s%n", scorer, pod.image(), chosen.endpoint);
      }
    } finally {
      nodes.forEach(ExperimentNode::close);
    }
    long servedBytes = blobBytesServed(logStart);
    List<Integer> perNode = nodes.stream().map(n -> n.pods).toList();
    String row = "| %s | %d | %d | %.1f | %.1f | %d | %s | %.3f |%n".formatted(scorer, seed, pods, servedBytes / MB,
        inventoryBytes / MB, pulls, perNode.stream().map(String::valueOf).reduce((a, b) -> a + "/" + b).orElse(""),
        coefficientOfVariation(perNode));
    Files.writeString(results, row, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return 0;
  }

  /** The same sequence for every scorer: images by Zipf popularity (weight 1/rank), seeded requests. */
  List<Pod> sequence() {
    Random random = new Random(seed);
    double[] weights = new double[images.size()];
    double total = 0;
    for (int rank = 0; rank < weights.length; rank++) {
      total += weights[rank] = 1.0 / (rank + 1);
    }
    List<Pod> sequence = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      double draw = random.nextDouble() * total;
      int image = 0;
      while (draw > weights[image] && image < weights.length - 1) {
        draw -= weights[image++];
      }
      sequence.add(new Pod(images.get(image), CPU_MILLIS[random.nextInt(CPU_MILLIS.length)],
          MEMORY_MIB[random.nextInt(MEMORY_MIB.length)]));
    }
    return sequence;
  }

  private ExperimentNode place(Pod pod, ImageLayers image, List<ExperimentNode> nodes, Random ties) {
    List<ExperimentNode> candidates = nodes.stream().filter(node -> node.cpuMillis + pod.cpuMillis() <= NODE_CPU_MILLIS
        && node.memoryMib + pod.memoryMib() <= NODE_MEMORY_MIB).toList();
    long[] imageScores = imageScores(image, nodes, candidates);
    ExperimentNode best = null;
    long bestScore = -1;
    int tied = 0;
    for (int i = 0; i < candidates.size(); i++) {
      ExperimentNode node = candidates.get(i);
      long cpu = node.cpuMillis + pod.cpuMillis();
      long memory = node.memoryMib + pod.memoryMib();
      long score = imageScores[i]
          + (ResourceScores.leastAllocated(cpu, NODE_CPU_MILLIS) + ResourceScores.leastAllocated(memory, NODE_MEMORY_MIB)) / 2
          + ResourceScores.balancedAllocation((double) cpu / NODE_CPU_MILLIS, (double) memory / NODE_MEMORY_MIB);
      if (score > bestScore) {
        best = node;
        bestScore = score;
        tied = 1;
      } else if (score == bestScore && ties.nextInt(++tied) == 0) {
        best = node; // reservoir sampling: each tied node equally likely, as kube-scheduler picks
      }
    }
    return best;
  }

  /**
   * The image part on kube-scheduler's 0..100 scale for each candidate (the nodes that fit), computed
   * by crigate-scheduler's score code; upstream's counts image holders over all nodes.
   */
  private long[] imageScores(ImageLayers image, List<ExperimentNode> nodes, List<ExperimentNode> candidates) {
    long[] scores = new long[candidates.size()];
    switch (scorer) {
      case "image-locality" -> {
        Map<String, Integer> nodesWithImage = new HashMap<>();
        nodes.forEach(n -> n.imageStatus().keySet().forEach(name -> nodesWithImage.merge(name, 1, Integer::sum)));
        for (int i = 0; i < scores.length; i++) {
          scores[i] = ImageLocality.score(List.of(image.reference()), candidates.get(i).imageStatus(), nodesWithImage,
              nodes.size());
        }
      }
      case "layer-locality" -> {
        PodLayers pod = PodLayers.of(List.of(image));
        long[] layerScores = LayerLocality.scores(pod, candidates.stream().map(n -> LayerLocality.held(pod, n)).toList());
        for (int i = 0; i < scores.length; i++) {
          scores[i] = layerScores[i] * (ImageLocality.MAX_NODE_SCORE / LayerLocality.MAX_EXTENDER_PRIORITY);
        }
      }
      default -> { } // resources-only: no image score
    }
    return scores;
  }

  /** Sums the sizes of blob GETs containerd made for the experiment's repositories since {@code offset}. */
  private long blobBytesServed(long offset) throws IOException {
    byte[] appended;
    try (RandomAccessFile log = new RandomAccessFile(registryLog.toFile(), "r")) {
      appended = new byte[(int) (log.length() - offset)];
      log.seek(offset);
      log.readFully(appended);
    }
    return blobBytes(new String(appended, StandardCharsets.UTF_8), repository);
  }

  /**
   * Bytes of successful blob GETs by containerd under {@code repository} in docker-registry's access
   * log; manifests, HEADs, and other clients (skopeo pushing, the registry client resolving layers) are
   * not transfers to a node.
   */
  static long blobBytes(String accessLog, String repository) {
    Pattern blobGet = Pattern.compile("\"GET /v2/" + Pattern.quote(repository)
        + "/\\S+/blobs/sha256:[0-9a-f]{64} HTTP/[0-9.]+\" 200 (\\d+) \"[^\"]*\" \"containerd");
    long bytes = 0;
    Matcher m = blobGet.matcher(accessLog);
    while (m.find()) {
      bytes += Long.parseLong(m.group(1));
    }
    return bytes;
  }

  static double coefficientOfVariation(List<Integer> values) {
    double mean = values.stream().mapToInt(Integer::intValue).average().orElse(0);
    double variance = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).average().orElse(0);
    return mean == 0 ? 0 : Math.sqrt(variance) / mean;
  }
}
