package io.crigate.cli;

import io.crigate.scheduler.sim.Experiment;
import io.crigate.scheduler.sim.ImageCatalog;
import io.crigate.scheduler.sim.NodeShape;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.PodStart;
import io.crigate.scheduler.sim.SimReport;
import io.crigate.scheduler.sim.SimResult;
import io.crigate.scheduler.sim.Simulation;
import io.crigate.scheduler.sim.TraceCsv;
import io.crigate.scheduler.sim.TraceGenerator;
import io.crigate.scheduler.sim.TraceParameters;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import java.util.stream.LongStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code crigate simulate}: compares image scorers on one seeded or recorded pod trace. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = "Replays a pod trace against upstream ImageLocality, the layer-aware score and a "
        + "resources-only baseline; writes results.csv, results.md and results.svg.")
final class SimulateCommand implements Callable<Integer> {

  @Option(names = "--seed", defaultValue = "1", description = "First seed (catalog, trace, ties). Default: ${DEFAULT-VALUE}")
  long seed;

  @Option(names = "--seeds", defaultValue = "3", description = "Seeds to run, from --seed on. Default: ${DEFAULT-VALUE}")
  int seeds;

  @Option(names = "--trace", description = "CSV trace (" + TraceCsv.HEADER + ") instead of a generated one")
  Path trace;

  @Option(names = "--write-trace", description = "Also write the generated trace of --seed to this CSV file")
  Path writeTrace;

  @Option(names = "--nodes", defaultValue = "20", description = "Default: ${DEFAULT-VALUE}")
  int nodes;

  @Option(names = "--apps", defaultValue = "120", description = "Application images in the catalog. Default: ${DEFAULT-VALUE}")
  int apps;

  @Option(names = "--pods", defaultValue = "4000", description = "Default: ${DEFAULT-VALUE}")
  int pods;

  @Option(names = "--arrivals-per-second", defaultValue = "0.25", description = "Default: ${DEFAULT-VALUE}")
  double rate;

  @Option(names = "--mean-duration", defaultValue = "600", description = "Mean pod run time, seconds. Default: ${DEFAULT-VALUE}")
  double meanDuration;

  @Option(names = "--zipf", defaultValue = "1.0", description = "Image popularity exponent. Default: ${DEFAULT-VALUE}")
  double zipf;

  @Option(names = "--image-disk-gb", defaultValue = "20", description = "Image disk per node, GB. Default: ${DEFAULT-VALUE}")
  double diskGb;

  @Option(names = "--gc-high", defaultValue = "85", description = "Image GC high threshold %%. Default: ${DEFAULT-VALUE}")
  int gcHigh;

  @Option(names = "--gc-low", defaultValue = "80", description = "Image GC low threshold %%. Default: ${DEFAULT-VALUE}")
  int gcLow;

  @Option(names = "--bandwidth-mbps", defaultValue = "100", description = "Pull bandwidth per node, MB/s. Default: ${DEFAULT-VALUE}")
  double bandwidthMbps;

  @Option(names = "--start-overhead", defaultValue = "0",
      description = "Seconds every pod start takes besides its pull (sandbox, container). Default: ${DEFAULT-VALUE}")
  double startOverheadSeconds;

  @Option(names = "--hold-node-through-start",
      description = "Start a pod's run time only when its start (overhead and pull) is done, so that it holds its "
          + "node's requests meanwhile, as under a kubelet; without it a pod ends at its arrival plus its run time")
  boolean holdNodeThroughStart;

  @Option(names = "--scorers", split = ",", description = "Subset of: resources-only, image-locality, layer-locality")
  List<String> scorers = new ArrayList<>(Experiment.ALL_SCORERS);

  @Option(names = "--out", defaultValue = "sim-out", description = "Output directory. Default: ${DEFAULT-VALUE}")
  Path out;

  @Option(names = "--no-progress", description = "Do not draw progress bars")
  boolean noProgress;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    try {
      return simulate();
    } catch (CrigateException.InvalidArgument | IllegalArgumentException | NoSuchFileException bad) {
      spec.commandLine().getErr().println("crigate simulate: " + (bad instanceof NoSuchFileException
          ? "no such file " + bad.getMessage() : bad.getMessage()));
      return 2;
    }
  }

  private int simulate() throws IOException {
    checkOptions();
    var shape = new NodeShape(NodeShape.DEFAULT.cpuMillis(), NodeShape.DEFAULT.memoryMib(),
        (long) (diskGb * 1e9), gcHigh, gcLow);
    var experiment = new Experiment(new Simulation(nodes, shape,
        new PodStart(bandwidthMbps * 1e6, startOverheadSeconds, holdNodeThroughStart), 0), apps, scorers);
    var params = new TraceParameters(pods, rate, meanDuration, zipf);
    List<SimResult> results;
    if (trace != null) {
      List<PodArrival> arrivals = TraceCsv.read(trace);
      results = experiment.onTrace(seed, ImageCatalog.generate(seed, apps), arrivals, this::progress);
    } else {
      if (writeTrace != null) {
        TraceCsv.write(writeTrace, TraceGenerator.generate(seed, params, ImageCatalog.generate(seed, apps)));
      }
      results = experiment.generated(LongStream.range(seed, seed + seeds).boxed().toList(), params, this::progress);
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("results.csv"), SimReport.csv(results));
    Files.writeString(out.resolve("results.md"), SimReport.markdown(results));
    Files.writeString(out.resolve("results.svg"), SimReport.svg(results));
    System.out.print(SimReport.markdown(results));
    System.out.println("wrote " + out.resolve("results.{csv,md,svg}"));
    return 0;
  }

  /**
   * Values picocli accepts but the simulation cannot use: some crash it (no seeds, no images), the
   * others run to a table that means nothing (no nodes, no arrivals, no disk). Named before any work.
   */
  private void checkOptions() {
    OptionRange.atLeast("--nodes", nodes, 1);
    OptionRange.atLeast("--seeds", seeds, 1);
    OptionRange.atLeast("--apps", apps, 1);
    OptionRange.atLeast("--pods", pods, 1);
    OptionRange.above("--arrivals-per-second", rate, 0);
    OptionRange.above("--mean-duration", meanDuration, 0);
    OptionRange.above("--image-disk-gb", diskGb, 0);
    OptionRange.above("--bandwidth-mbps", bandwidthMbps, 0);
    OptionRange.atLeast("--start-overhead", startOverheadSeconds, 0);
    OptionRange.atLeast("--zipf", zipf, 0);
  }

  private IntConsumer progress(String task, int total) {
    return noProgress ? done -> {} : Progress.on(task, total);
  }
}
