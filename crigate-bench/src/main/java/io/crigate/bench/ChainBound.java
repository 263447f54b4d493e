package io.crigate.bench;

import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.sim.ExpectedNextArrival;
import io.crigate.scheduler.sim.Experiment;
import io.crigate.scheduler.sim.HindsightSearch;
import io.crigate.scheduler.sim.ImageCatalog;
import io.crigate.scheduler.sim.LookaheadSearch;
import io.crigate.scheduler.sim.NodeShape;
import io.crigate.scheduler.sim.Placement;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.PodStart;
import io.crigate.scheduler.sim.PullLowerBound;
import io.crigate.scheduler.sim.SimResult;
import io.crigate.scheduler.sim.Simulation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What the whole-chain experiment's targets allow, simulated on its own shape: the chain's catalog
 * as the registry holds it, its node size and image disk, its traces (the same seeds give the same
 * pods as {@link ChainExperiment}). Per node count, over many seeds: the three scorers, the layer
 * score without load bands at a sweep of weights ({@link Placement#loadBlindLayers}), the layer score
 * with balance priced instead of banded at a sweep of prices ({@link Placement#pricedBalance}), the greedy
 * oracle ({@link Placement#fewestMissingWithinSlack}) at a sweep of CPU slacks, an offline search
 * that sees each trace in advance ({@link HindsightSearch}) at a sweep of prices on balance, the
 * same search seeing only the next few arrivals ({@link LookaheadSearch}) at a sweep of how many,
 * an online rollout that expects the next arrival from past or whole-trace frequencies ({@link ExpectedNextArrival}),
 * each against the targets' bytes ratio and both balance limits, and the lower bounds of {@link PullLowerBound}.
 * Prints markdown (scripts/experiment-layers.sh with BOUND=1).
 */
@Command(name = "chain-bound", mixinStandardHelpOptions = true,
    description = "Bytes reachable at the chain experiment's balance limits, simulated on its shape.")
public final class ChainBound implements Callable<Integer> {

  private static final double MB = 1e6;
  private static final double BYTES_TARGET = 0.70;
  private static final double CPU_MARGIN = 0.01;
  private static final double PODS_MARGIN = 0.05;
  /** Any fixed value: the search's draws must repeat from run to run. */
  private static final long HINDSIGHT_SEED = 18;

  @Option(names = "--images", required = true, split = ",", description = "the chain's pod images, in its order")
  List<String> images;

  @Option(names = "--nodes", split = ",", defaultValue = "5,10")
  List<Integer> nodeCounts;

  @Option(names = "--seeds", defaultValue = "20", description = "seeds 1..this")
  int seeds;

  @Option(names = "--pods", defaultValue = "0", description = "pods per trace; 0: the chain's default, 12 per node")
  int pods;

  @Option(names = "--image-disk-mb", defaultValue = "600")
  long imageDiskMb;

  @Option(names = "--slacks", split = ",", defaultValue = "0,0.01,0.02,0.05,0.1,0.15,0.2,0.3,0.5,1",
      description = "the oracle's CPU slacks, fractions of a node")
  List<Double> slacks;

  @Option(names = "--weights", split = ",", defaultValue = "0.25,0.5,1,2,4",
      description = "weights of the layer score without load bands, beside the resource scores")
  List<Double> weights;

  @Option(names = "--balance-prices", split = ",",
      description = "GB a unit of CV is worth in the layer score that prices balance instead of banding it (the CV of pods at --balance-pods-share of it); none: no rows")
  List<Double> balancePrices = List.of();

  @Option(names = "--balance-pods-share", defaultValue = "0.1", description = "see --balance-prices")
  double balancePodsShare;

  @Option(names = "--hindsight-evaluations", defaultValue = "20000",
      description = "simulated runs per hindsight search (one per seed and pair of prices); 0: no hindsight rows")
  int hindsightEvaluations;

  @Option(names = "--hindsight-restarts", defaultValue = "2", description = "annealing runs sharing each search's budget")
  int hindsightRestarts;

  @Option(names = "--hindsight-cpu-prices", split = ",", defaultValue = "1,2,4",
      description = "prices of CV CPU per node in the hindsight search, in image-locality's mean bytes")
  List<Double> hindsightCpuPrices;

  @Option(names = "--hindsight-pods-prices", split = ",", defaultValue = "0.5",
      description = "prices of CV pods per node in the hindsight search, in image-locality's mean bytes")
  List<Double> hindsightPodsPrices;

  @Option(names = "--lookahead", split = ",",
      description = "arrivals a lookahead search sees, the pod at hand included (1: none beyond it); none: no lookahead rows")
  List<Integer> lookaheads = List.of();

  @Option(names = "--lookahead-evaluations", defaultValue = "300",
      description = "simulated runs per pod in a lookahead search")
  int lookaheadEvaluations;

  @Option(names = "--lookahead-hide-durations",
      description = "the lookahead search does not know how long pods run, only which have ended")
  boolean lookaheadHidesDurations;

  @Option(names = "--expected-next",
      description = "also the online rollout that expects the next arrival from past frequencies, at the lookahead's prices")
  boolean expectedNext;

  @Option(names = "--expected-next-knows-popularity",
      description = "also the rollout drawing the next arrival from the whole trace's frequencies (what an online scheduler could at most learn)")
  boolean expectedNextKnowsPopularity;

  @Option(names = "--lookahead-cpu-prices", split = ",", defaultValue = "1,2,4",
      description = "prices of CV CPU per node in the lookahead search and the expected-next rollout, in image-locality's mean bytes")
  List<Double> lookaheadCpuPrices;

  @Option(names = "--publish-delay", defaultValue = "0",
      description = "trace seconds until the scores see a placement's pulled layers (the chain: the pull, then the node's publish)")
  double publishDelaySeconds;

  @Option(names = "--pull-rate-mb", defaultValue = "100",
      description = "one node's pull rate, MB per trace second (the chain at time scale 0.5: ~20)")
  double pullRateMb;

  @Option(names = "--start-overhead", defaultValue = "0",
      description = "trace seconds of every start and stop besides the pull (the chain at time scale 0.5: ~1)")
  double startOverheadSeconds;

  @Option(names = "--hold-node-through-start",
      description = "a pod's run time begins after its start, so it holds its node through the pull, as in the chain and under a kubelet")
  boolean holdNodeThroughStart;

  @Option(names = "--out", description = "also write the markdown here")
  Path out;

  /** Means over seeds of one placement's results. */
  record Mean(String placement, double mb, double cvCpu, double cvPods, double unschedulable, double pulls,
      double imageNodePairs) {

    static Mean of(String placement, List<SimResult> results) {
      return new Mean(placement, avg(results, r -> r.bytesPulled() / MB), avg(results, SimResult::cpuPerNodeCv),
          avg(results, SimResult::podsPerNodeCv), avg(results, SimResult::unschedulable), avg(results, SimResult::pulls),
          avg(results, SimResult::imageNodePairs));
    }

    private static double avg(List<SimResult> results, ToDoubleFunction<SimResult> value) {
      return results.stream().mapToDouble(value).average().orElse(Double.NaN);
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new ChainBound()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Locale.setDefault(Locale.ROOT);
    String registryHost = images.getFirst().substring(0, images.getFirst().indexOf('/'));
    RegistryClient registry = new RegistryClient(RegistryClientConfig.defaults().withInsecure(registryHost));
    ImageCatalog catalog = new ImageCatalog(images.stream().map(registry::layers).toList());
    NodeShape shape = ChainExperiment.nodeShape(imageDiskMb);
    StringBuilder report = new StringBuilder();
    for (int nodes : nodeCounts) {
      report.append(table(nodes, catalog, shape));
    }
    System.out.print(report);
    if (out != null) {
      Files.writeString(out, report);
    }
    return 0;
  }

  private String table(int nodes, ImageCatalog catalog, NodeShape shape) {
    List<Placement> placements = new ArrayList<>();
    Experiment.ALL_SCORERS.forEach(scorer -> placements.add(Placement.scored(scorer, shape)));
    weights.forEach(weight -> placements.add(Placement.loadBlindLayers(weight, shape)));
    slacks.forEach(slack -> placements.add(Placement.fewestMissingWithinSlack(slack)));
    balancePrices.forEach(price -> placements.add(Placement.pricedBalance(price * 1e9, balancePodsShare, shape)));
    Simulation simulation = new Simulation(nodes, shape,
        new PodStart(pullRateMb * MB, startOverheadSeconds, holdNodeThroughStart), publishDelaySeconds);
    Map<String, List<SimResult>> results = new LinkedHashMap<>();
    List<List<PodArrival>> traces = new ArrayList<>();
    long eachOnce = 0;
    long concurrency = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      List<PodArrival> trace = ChainExperiment.trace(seed, nodes, pods, catalog);
      traces.add(trace);
      for (Placement placement : placements) {
        results.computeIfAbsent(placement.name(), name -> new ArrayList<>())
            .add(simulation.run(placement, seed, trace, catalog, done -> {}));
      }
      PullLowerBound bound = PullLowerBound.of(trace, catalog, shape, nodes);
      eachOnce += bound.eachLayerOnce();
      concurrency += bound.concurrency();
    }
    List<SimResult> upstreamRuns = results.get("image-locality");
    if (hindsightEvaluations > 0) {
      HindsightSearch search = new HindsightSearch(simulation, hindsightEvaluations, hindsightRestarts, HINDSIGHT_SEED);
      List<Placement> starts = List.of(Placement.scored("image-locality", shape), Placement.scored("layer-locality", shape));
      SearchRows.Search hindsight = (name, seed, trace, cat, objective) ->
          search.search(name, seed, trace, cat, starts, objective).result();
      results.putAll(new SearchRows("hindsight-search", hindsight, hindsightCpuPrices, hindsightPodsPrices)
          .run(traces, catalog, upstreamRuns));
    }
    for (boolean knowsPopularity : new boolean[] {false, true}) {
      if (knowsPopularity ? expectedNextKnowsPopularity : expectedNext) {
        ExpectedNextArrival rollout = new ExpectedNextArrival(simulation, knowsPopularity);
        SearchRows.Search expected = (name, seed, trace, cat, objective) ->
            rollout.search(name, seed, trace, cat, objective).result();
        String prefix = knowsPopularity ? "expected-next-popularity" : "expected-next";
        results.putAll(new SearchRows(prefix, expected, lookaheadCpuPrices, hindsightPodsPrices)
            .run(traces, catalog, upstreamRuns));
      }
    }
    for (int lookahead : lookaheads) {
      LookaheadSearch search = new LookaheadSearch(simulation, lookahead, !lookaheadHidesDurations, lookaheadEvaluations,
          HINDSIGHT_SEED);
      Placement online = Placement.scored("layer-locality", shape);
      SearchRows.Search rolling = (name, seed, trace, cat, objective) ->
          search.search(name, seed, trace, cat, online, objective).result();
      String prefix = "lookahead-%d%s".formatted(lookahead, lookaheadHidesDurations ? "-no-durations" : "");
      results.putAll(new SearchRows(prefix, rolling, lookaheadCpuPrices, hindsightPodsPrices)
          .run(traces, catalog, upstreamRuns));
    }
    List<Mean> means = results.entrySet().stream().map(e -> Mean.of(e.getKey(), e.getValue())).toList();
    Mean upstream = means.stream().filter(m -> m.placement().equals("image-locality")).findFirst().orElseThrow();
    Mean resources = means.stream().filter(m -> m.placement().equals("resources-only")).findFirst().orElseThrow();
    double cpuLimit = upstream.cvCpu() + CPU_MARGIN;
    double podsLimit = resources.cvPods() + PODS_MARGIN;
    StringBuilder out = new StringBuilder("""

        %d nodes, seeds 1-%d, %d pods each; limits: CV CPU ≤ %.3f (image-locality + %.2f), CV pods ≤ %.3f (resources-only + %.2f)%s

        | placement | MB pulled | × image-locality | CV CPU/node | CV pods/node | both balance limits | unschedulable | pulls | (image, node) pairs |
        |---|---:|---:|---:|---:|---|---:|---:|---:|
        """.formatted(nodes, seeds, ChainExperiment.trace(1, nodes, pods, catalog).size(), cpuLimit, CPU_MARGIN,
        podsLimit, PODS_MARGIN, holdNodeThroughStart
            ? "; pods hold their node through a start of %.1f s + the pull at %.0f MB/s".formatted(startOverheadSeconds, pullRateMb)
            : ""));
    Mean bestBalanced = null;
    for (Mean m : means) {
      boolean balanced = m.cvCpu() <= cpuLimit && m.cvPods() <= podsLimit;
      if (balanced && !Experiment.ALL_SCORERS.contains(m.placement()) && (bestBalanced == null || m.mb() < bestBalanced.mb())) {
        bestBalanced = m;
      }
      out.append("| %s | %.1f | %.3f | %.3f | %.3f | %s | %.2f | %.1f | %.1f |%n".formatted(m.placement(), m.mb(),
          m.mb() / upstream.mb(), m.cvCpu(), m.cvPods(), balanced ? "met" : "missed", m.unschedulable(), m.pulls(),
          m.imageNodePairs()));
    }
    double onceMb = eachOnce / MB / seeds;
    double concurrencyMb = concurrency / MB / seeds;
    out.append("| *lower bound: each layer pulled once* | %.1f | %.3f | | | | | | |%n".formatted(onceMb, onceMb / upstream.mb()));
    out.append("| *lower bound: each layer on as many nodes as its concurrent pods need* | %.1f | %.3f | | | | | | |%n"
        .formatted(concurrencyMb, concurrencyMb / upstream.mb()));
    out.append(bestBalanced == null
        ? "%nNo other placement meets both balance limits.%n".formatted()
        : "%nFewest bytes within both balance limits, other than the scorers: %s, %.3f× image-locality (target %.2f×: %s).%n"
            .formatted(bestBalanced.placement(), bestBalanced.mb() / upstream.mb(), BYTES_TARGET,
                bestBalanced.mb() / upstream.mb() <= BYTES_TARGET ? "reached" : "not reached"));
    return out.toString();
  }
}
