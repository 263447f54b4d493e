package io.crigate.bench;

import io.crigate.cli.Progress;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.sim.ImageCatalog;
import io.crigate.scheduler.sim.NodeShape;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.SimResult;
import io.crigate.scheduler.sim.Simulation;
import io.crigate.scheduler.sim.TraceGenerator;
import io.crigate.scheduler.sim.TraceParameters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's run on real containerd nodes: the same seeded trace (TraceGenerator over the
 * experiment's images), placement and kubelet image GC (Simulation), with every pull and every GC
 * removal of a node's image store carried out on one containerd instance through CRI. Counts the
 * bytes the registry served (its access log) next to the simulator's bytes and the bytes of layers
 * newly in containerd's inventories. Run once per scorer on fresh nodes
 * (scripts/experiment-layers.sh); appends one markdown row.
 */
@Command(name = "layer-placement", mixinStandardHelpOptions = true,
    description = "Real pulls and image GC on containerd nodes, placed by one image scorer.")
public final class LayerPlacementExperiment implements Callable<Integer> {

  /** Half the simulator's default node (4 cores, 16 GiB), the kubelet's default GC thresholds. */
  private static final int NODE_CPU_MILLIS = 4000;
  private static final long NODE_MEMORY_MIB = 16 * 1024;
  private static final int GC_HIGH_PERCENT = 85;
  private static final int GC_LOW_PERCENT = 80;
  /**
   * Pods running per node on average: the simulator's default trace keeps about 7.5 pods on each
   * 8-core node, so 3.75 on a 4-core one (about 60% of its CPU). With one arrival per second of trace
   * time, that many seconds × nodes is the mean run time. Trace time is logical: nothing waits.
   */
  private static final double RUNNING_PODS_PER_NODE = 3.75;
  private static final double ZIPF_EXPONENT = 1.0;
  private static final double MB = 1e6;

  @Option(names = "--scorer", required = true, description = "resources-only, image-locality or layer-locality")
  String scorer;

  @Option(names = "--nodes", required = true, split = ",", description = "containerd CRI endpoints, unix:///...")
  List<String> endpoints;

  @Option(names = "--images", required = true, split = ",", description = "pod images; their popularity order is drawn per seed")
  List<String> images;

  @Option(names = "--registry-log", required = true, description = "docker-registry access log")
  Path registryLog;

  @Option(names = "--registry-repository", required = true, description = "repository prefix of the images")
  String repository;

  @Option(names = "--results", required = true, description = "file to append the markdown row to")
  Path results;

  @Option(names = "--pods", defaultValue = "60")
  int pods;

  @Option(names = "--seed", defaultValue = "1")
  long seed;

  @Option(names = "--image-disk-mb", defaultValue = "600", description = "per node; GC above 85%% of it, down to 80%%")
  long imageDiskMb;

  public static void main(String[] args) {
    System.exit(new CommandLine(new LayerPlacementExperiment()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    String registryHost = images.getFirst().substring(0, images.getFirst().indexOf('/'));
    RegistryClient registry = new RegistryClient(RegistryClientConfig.defaults().withInsecure(registryHost));
    ImageCatalog catalog = new ImageCatalog(images.stream().map(registry::layers).toList());
    List<PodArrival> trace = TraceGenerator.generate(seed, new TraceParameters(pods, 1,
        RUNNING_PODS_PER_NODE * endpoints.size(), ZIPF_EXPONENT), catalog);
    NodeShape shape = new NodeShape(NODE_CPU_MILLIS, NODE_MEMORY_MIB, imageDiskMb * 1_000_000, GC_HIGH_PERCENT,
        GC_LOW_PERCENT);
    List<ExperimentNode> nodes = endpoints.stream().map(endpoint -> new ExperimentNode(endpoint, registry)).toList();
    long logStart = Files.size(registryLog);
    SimResult result;
    try {
      // the bandwidth only turns bytes into the simulator's start latency, which is not reported here
      result = new Simulation(nodes.size(), shape, 100e6).run(scorer, seed, trace, catalog,
          Progress.on("%s seed %d pods".formatted(scorer, seed), pods), nodes::get);
    } finally {
      nodes.forEach(ExperimentNode::close);
    }
    String row = "| %s | %d | %d | %.1f | %.1f | %.1f | %d | %d | %.3f | %.3f | %d |%n".formatted(scorer, seed, pods,
        RegistryAccessLog.blobBytesSince(registryLog, logStart, repository) / MB, result.bytesPulled() / MB,
        nodes.stream().mapToLong(n -> n.newLayerBytes).sum() / MB, result.pulls(),
        nodes.stream().mapToInt(n -> n.removals).sum(), result.podsPerNodeCv(), result.cpuPerNodeCv(),
        result.unschedulable());
    Files.writeString(results, row, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return 0;
  }
}
