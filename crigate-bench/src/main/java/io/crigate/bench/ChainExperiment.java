package io.crigate.bench;

import io.crigate.images.ImageLayers;
import io.crigate.images.NodeImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.sim.ImageCatalog;
import io.crigate.scheduler.sim.NodeShape;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.TraceGenerator;
import io.crigate.scheduler.sim.TraceParameters;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The whole chain of layer-aware scheduling, for one scorer and one seed: N nodes, each a
 * {@code crigate serve} in front of its own containerd publishing its {@code NodeImageLayers} to an
 * API server (fabric8's mock, CRUD mode, in this JVM) that also holds the Nodes and the Pods; a
 * scheduler doing kube-scheduler's cycle ({@link ChainScheduler}), which asks a real {@code crigate
 * extender} process over HTTP (every scorer's run carries and calls it; layer-locality uses its
 * answer); every pod bound by {@code spec.nodeName} and
 * really started through its node's crigate, run for its trace time scaled, then stopped and
 * removed, with the kubelet's image GC. Appends one markdown row (scripts/experiment-chain.sh).
 */
@Command(name = "chain-experiment", mixinStandardHelpOptions = true,
    description = "Whole-chain layer-aware scheduling on real crigate and containerd nodes, one scorer.")
public final class ChainExperiment implements Callable<Integer> {

  private static final int NODE_CPU_MILLIS = 4000;
  private static final long NODE_MEMORY_MIB = 16 * 1024;
  private static final int GC_HIGH_PERCENT = 85;
  private static final int GC_LOW_PERCENT = 80;
  /** As in the earlier experiment: 3.75 pods per 4-core node on average, about 60% of its CPU. */
  private static final double RUNNING_PODS_PER_NODE = 3.75;
  private static final double ZIPF_EXPONENT = 1.0;
  private static final int PODS_PER_NODE = 12;
  static final String NAMESPACE = "chain";
  private static final double MB = 1e6;
  /** The burst's pods: one image, small requests, so that room never limits where they go. */
  private static final int BURST_CPU_MILLIS = 250;
  private static final long BURST_MEMORY_MIB = 256;
  private static final double BURST_RUN_SECONDS = 30;

  @Option(names = "--scorer", required = true, description = "resources-only, image-locality or layer-locality")
  String scorer;

  @Option(names = "--nodes", required = true, split = ",", description = "containerd CRI endpoints, unix:///...")
  List<String> containerds;

  @Option(names = "--images", required = true, split = ",", description = "pod images; their popularity order is drawn per seed")
  List<String> images;

  @Option(names = "--pause-image", required = true, description = "the sandbox image, pulled on every node before the first pod")
  String pauseImage;

  @Option(names = "--registry-log", required = true, description = "docker-registry access log")
  Path registryLog;

  @Option(names = "--registry-repository", required = true, description = "repository prefix of the images")
  String repository;

  @Option(names = "--results", required = true, description = "file to append the markdown row to")
  Path results;

  @Option(names = "--starts", description = "file to append one row per started pod to (scorer, nodes, seed, pod, node, pulled, "
      + "start ms, image, image step began (epoch ms), ms waited for the node's pull in progress, ms of its own pull)")
  Path starts;

  @Option(names = "--work-dir", required = true, description = "crigate state, logs and the kubeconfig go here")
  Path workDir;

  @Option(names = "--crigate-home", defaultValue = ".", description = "the checkout whose bin/crigate runs the nodes and the extender")
  Path crigateHome;

  @Option(names = "--extender-port", defaultValue = "26080")
  int extenderPort;

  @Option(names = "--pods", defaultValue = "0", description = "pods in the trace; 0: 12 per node")
  int pods;

  @Option(names = "--seed", defaultValue = "1")
  long seed;

  @Option(names = "--time-scale", defaultValue = "1.0", description = "real seconds per trace second")
  double timeScale;

  @Option(names = "--image-disk-mb", defaultValue = "600", description = "per node; GC above 85%% of it, down to 80%%")
  long imageDiskMb;

  @Option(names = "--burst", defaultValue = "0",
      description = "instead of the trace: this many pods of one image created at once, the image held by one node")
  int burst;

  @Option(names = "--unnamed-to-extender",
      description = "send the extender each pod without its name, so it cannot count the pods it scored before their "
          + "bindings show: the extender as before the burst fix, the burst's baseline")
  boolean unnamedToExtender;

  @Option(names = "--extender-home",
      description = "the checkout whose bin/crigate runs the extender; default: --crigate-home (another build's, as a baseline in the same run)")
  Path extenderHome;

  @Option(names = "--label", description = "the run's name in the results and its directory; default: the scorer's")
  String label;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ChainExperiment()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    String registryHost = images.getFirst().substring(0, images.getFirst().indexOf('/'));
    RegistryClient registry = new RegistryClient(RegistryClientConfig.defaults().withInsecure(registryHost));
    ImageCatalog catalog = new ImageCatalog(images.stream().map(registry::layers).toList());
    List<PodArrival> trace = burst > 0 ? burstTrace(catalog) : trace(seed, containerds.size(), pods, catalog);
    List<String> names = IntStream.rangeClosed(1, containerds.size()).mapToObj(i -> "chain-" + i).toList();
    NodeShape shape = nodeShape(imageDiskMb);
    KubeletImageGc gc = new KubeletImageGc(shape.imageDiskBytes(), shape.gcHighPercent(), shape.gcLowPercent());
    Path runDir = workDir.resolve("%s-%d".formatted(label(), seed));
    try (ChainApiServer api = ChainApiServer.start(runDir);
        ExecutorService starting = Executors.newVirtualThreadPerTaskExecutor()) {
      KubernetesClient kube = api.client();
      names.forEach(name -> kube.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
          .withNewStatus().addToAllocatable(Map.of("cpu", new Quantity(NODE_CPU_MILLIS + "m"),
              "memory", new Quantity(NODE_MEMORY_MIB + "Mi"), "pods", new Quantity("110"))).endStatus().build()).create());
      // The first crigate starts alone: it adopts the class cache a previous run recorded
      // (bin/crigate), which several starting at once would all try to take.
      List<ChainNode> nodes = new ArrayList<>(List.of(ChainNode.start(crigateHome, runDir.resolve(names.getFirst()),
          names.getFirst(), containerds.getFirst(), api.kubeconfig(), registry, gc, pauseImage)));
      List<Future<ChainNode>> launching = new ArrayList<>();
      for (int i = 1; i < names.size(); i++) {
        int n = i;
        launching.add(starting.submit(() -> ChainNode.start(crigateHome, runDir.resolve(names.get(n)), names.get(n),
            containerds.get(n), api.kubeconfig(), registry, gc, pauseImage)));
      }
      try {
        for (Future<ChainNode> node : launching) {
          nodes.add(node.get());
        }
      } catch (ExecutionException failed) {
        for (Future<ChainNode> node : launching) {
          if (node.state() == Future.State.SUCCESS && !nodes.contains(node.resultNow())) {
            nodes.add(node.resultNow());
          }
        }
        for (ChainNode node : nodes) {
          node.close();
        }
        throw failed;
      }
      try (ExtenderProcess extender = ExtenderProcess.start(extenderHome != null ? extenderHome : crigateHome, runDir, api.kubeconfig(), extenderPort, registryHost)) {
        if (burst > 0) {
          holdOnFirstNode(nodes.getFirst(), kube, registry.layers(trace.getFirst().image()));
        }
        ChainScheduler scheduler = new ChainScheduler(names, scorer, n -> nodes.get(n).imageStatus(),
            extender.client(), shape.cpuMillis(), shape.memoryMib(), seed, !unnamedToExtender);
        ChainRun run = new ChainRun(kube, scheduler, nodes, timeScale);
        long logStart = Files.size(registryLog);
        String loadBefore = loadAverage();
        ChainRun.Outcome outcome = run.replay(trace);
        report(outcome, RegistryAccessLog.blobBytesSince(registryLog, logStart, repository), nodes, trace.size(),
            loadBefore + "-" + loadAverage());
      } finally {
        for (ChainNode node : nodes) {
          node.close();
        }
      }
    }
    return 0;
  }

  /**
   * The seed's trace on {@code nodeCount} nodes: {@code pods} pods (0: 12 per node), one arrival per
   * trace second, run times for {@link #RUNNING_PODS_PER_NODE} running per node on average.
   */
  static List<PodArrival> trace(long seed, int nodeCount, int pods, ImageCatalog catalog) {
    return TraceGenerator.generate(seed, new TraceParameters(pods > 0 ? pods : PODS_PER_NODE * nodeCount, 1,
        RUNNING_PODS_PER_NODE * nodeCount, ZIPF_EXPONENT), catalog);
  }

  /** Each node as the scheduler and the image GC see it, {@code imageDiskMb} MB for images. */
  static NodeShape nodeShape(long imageDiskMb) {
    return new NodeShape(NODE_CPU_MILLIS, NODE_MEMORY_MIB, imageDiskMb * 1_000_000, GC_HIGH_PERCENT, GC_LOW_PERCENT);
  }

  /**
   * {@code burst} pods of one image created at once, as a controller scaling up creates them: the
   * scheduler takes them back to back, faster than bindings reach the extender's informer.
   */
  private List<PodArrival> burstTrace(ImageCatalog catalog) {
    String image = catalog.images().get((int) (seed % catalog.images().size())).reference();
    return IntStream.range(0, burst).mapToObj(i -> new PodArrival(0, "burst-%03d".formatted(i), image,
        BURST_CPU_MILLIS, BURST_MEMORY_MIB, BURST_RUN_SECONDS)).toList();
  }

  /**
   * Starts and ends one pod of the burst's image on the first node, so that node holds it (as a
   * node that ran the image before), and waits until the node's published inventory says so.
   */
  private static void holdOnFirstNode(ChainNode node, KubernetesClient kube, ImageLayers image)
      throws IOException, InterruptedException {
    node.stopPod(node.startPod("holder", image.reference(), 1));
    String top = image.layers().getLast().digest();
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (true) {
      NodeImageLayers published = kube.resources(NodeImageLayers.class).withName(node.name).get();
      if (published != null && published.getSpec().layers().containsKey(top)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("node %s did not publish %s within a minute".formatted(node.name, top));
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }

  /** The machine's 1-minute load average, as /proc/loadavg gives it (the runs share the machine). */
  private static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
  }

  private void report(ChainRun.Outcome outcome, long registryBytes, List<ChainNode> nodes, int podCount, String load)
      throws IOException {
    Samples latencies = outcome.startLatencies();
    boolean any = latencies.count() > 0;
    Samples withoutPull = outcome.startLatenciesWithoutPull();
    String row = "| %s | %d | %d | %d | %.1f | %d | %d | %.2f | %.2f | %.2f | %.3f | %.3f | %d | %d | %d | %.2f | %s |%n".formatted(
        unnamedToExtender ? label() + ", pods unnamed to the extender" : label(), containerds.size(), seed, podCount, registryBytes / MB, outcome.pulls(),
        nodes.stream().mapToInt(ChainNode::gcRemovals).sum(),
        any ? latencies.percentileMicros(50) / 1e6 : 0, any ? latencies.percentileMicros(95) / 1e6 : 0,
        any ? latencies.meanMicros() / 1e6 : 0, outcome.podsPerNodeCv(), outcome.cpuPerNodeCv(),
        outcome.unschedulable(), outcome.mostOnOneNode(), outcome.failedStarts(),
        withoutPull.count() > 0 ? withoutPull.meanMicros() / 1e6 : Double.NaN, load);
    Files.writeString(results, row, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    if (starts != null) {
      StringBuilder lines = new StringBuilder();
      outcome.started().forEach(s -> lines.append("%s\t%d\t%d\t%s\t%s\t%s\t%.0f\t%s\t%d\t%.0f\t%.0f%n".formatted(label(),
          containerds.size(), seed, s.pod(), s.node(), s.pulled(), s.latency().toNanos() / 1e6, s.start().image(),
          s.start().began().toEpochMilli(), s.start().imageStep().waited().toNanos() / 1e6,
          s.start().imageStep().pulling().toNanos() / 1e6)));
      Files.writeString(starts, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
  }

  private String label() {
    return label != null ? label : scorer;
  }

  /** The pod as the API server holds it before binding: one container, the trace's requests. */
  static Pod pod(PodArrival arrival) {
    return new PodBuilder().withNewMetadata().withName(arrival.pod()).withNamespace(NAMESPACE).withUid(arrival.pod())
        .endMetadata().withNewSpec().addNewContainer().withName("app").withImage(arrival.image())
        .withNewResources().addToRequests(Map.of("cpu", new Quantity(arrival.cpuMillis() + "m"),
            "memory", new Quantity(arrival.memoryMib() + "Mi"))).endResources().endContainer().endSpec().build();
  }
}
