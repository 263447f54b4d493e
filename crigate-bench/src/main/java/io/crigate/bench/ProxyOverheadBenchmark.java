package io.crigate.bench;

import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.PodSandboxStatusRequest;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.cli.ctl.CriClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Direct containerd against the same calls through crigate, in one run on one machine: cheap-call
 * latency, pod lifecycle time, crigate's memory, and its time from start to serving. Every call is
 * also made through a plain byte relay ({@link ByteRelay}), the floor any userspace hop costs here,
 * and through two minimal relays in a JVM ({@link HopRelay}): bytes only, and HPACK re-encoding.
 */
@Command(name = "proxy-overhead", mixinStandardHelpOptions = true,
    description = "Measures what crigate adds between a CRI client and containerd.")
public final class ProxyOverheadBenchmark implements Callable<Integer> {

  private static final Duration CHEAP_CALL_DEADLINE = Duration.ofSeconds(10);
  private static final int LIFECYCLE_WARMUP = 3;
  private static final int RSS_READINGS = 5;
  private static final Duration RSS_READING_INTERVAL = Duration.ofSeconds(1);

  @Option(names = "--runtime-endpoint", required = true, description = "containerd's CRI socket, unix:///...")
  String runtimeEndpoint;

  @Option(names = "--image", required = true, description = "image for the pods' containers (needs /bin/sleep)")
  String image;

  @Option(names = "--repository", defaultValue = ".", description = "crigate checkout holding bin/crigate")
  Path repository;

  @Option(names = "--work-dir", defaultValue = "/tmp/crigate-bench")
  Path workDir;

  @Option(names = "--pods", defaultValue = "50")
  int pods;

  @Option(names = "--iterations", defaultValue = "5000", description = "timed calls per side and call type")
  int iterations;

  @Option(names = "--warmup", defaultValue = "2000")
  int warmup;

  @Option(names = "--lifecycles", defaultValue = "10", description = "pod lifecycles per side")
  int lifecycles;

  @Option(names = "--starts", defaultValue = "5", description = "timed restarts before the measured run")
  int starts;

  @Option(names = "--runtime-pid",
      description = "the runtime's process id, to report the CPU it uses per lifecycle of each side")
  Long runtimePid;

  @Option(names = "--report", description = "also write the markdown report to this file")
  Path report;

  @Option(names = "--baseline-repository",
      description = "another crigate checkout (e.g. main) measured in the same run, interleaved, as one more side")
  Path baselineRepository;

  @Option(names = "--crigate-config", description = "crigate's --config file, e.g. one that enables metrics")
  Path crigateConfig;

  @Option(names = "--crigate-java-opts", defaultValue = "",
      description = "JVM options for crigate under test, passed as bin/crigate's CRIGATE_JAVA_OPTS")
  String crigateJavaOpts;

  @Option(names = "--baseline-java-opts",
      description = "JVM options for the baseline side; without --baseline-repository the baseline is this"
          + " checkout, so two sets of options are compared on one build in the same run")
  String baselineJavaOpts;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ProxyOverheadBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (baselineRepository == null && baselineJavaOpts != null) {
      baselineRepository = repository;
    }
    BenchmarkReport out = new BenchmarkReport();
    out.sides(describe(repository, crigateJavaOpts),
        baselineRepository == null ? null : describe(baselineRepository, baselineJavaOpts));
    timedStarts(out);
    try (CriClient direct = CriClient.connect(runtimeEndpoint);
        ByteRelay relay = ByteRelay.start(workDir.resolve("relay"), runtimeEndpoint);
        ByteRelay javaBytes = ByteRelay.startJava(workDir.resolve("relay"), runtimeEndpoint, "bytes");
        ByteRelay javaHpack = ByteRelay.startJava(workDir.resolve("relay"), runtimeEndpoint, "hpack");
        CrigateUnderBench crigate = startCrigate();
        CrigateUnderBench baseline = baselineRepository == null ? null : startBaseline()) {
      List<Via> sides = new ArrayList<>(List.of(
          new Via(BenchmarkReport.RELAY, relay::client, relay::cpuNanos, null),
          new Via(BenchmarkReport.JAVA_BYTES, javaBytes::client, javaBytes::cpuNanos, javaBytes::ioThreadCpuNanos),
          new Via(BenchmarkReport.JAVA_HPACK, javaHpack::client, javaHpack::cpuNanos, javaHpack::ioThreadCpuNanos),
          new Via(BenchmarkReport.CRIGATE, crigate::client, crigate::cpuNanos, crigate::ioThreadCpuNanos)));
      if (baseline != null) {
        sides.add(new Via(BenchmarkReport.BASELINE, baseline::client, baseline::cpuNanos, baseline::ioThreadCpuNanos));
      }
      PodFleet viaFleet = new PodFleet(crigate.client(), image, workDir.resolve("logs"));
      PodFleet directFleet = new PodFleet(direct, image, workDir.resolve("logs"));
      viaFleet.pullImage();
      // Warm both paths before the idle reading so the JIT and pools are in their steady shape.
      VersionRequest version = VersionRequest.getDefaultInstance();
      Call<?> versionCall = client -> client.runtime(CHEAP_CALL_DEADLINE).version(version);
      measure("Version", direct, sides, versionCall, warmup, 1);
      List<Samples> idle = residentSets(crigate, baseline);

      List<PodFleet.Pod> running = viaFleet.start(pods);
      try {
        List<PairedLatency.Result> results = new ArrayList<>();
        results.add(measure("Version", direct, sides, versionCall, warmup, iterations));
        ContainerStatusRequest status = ContainerStatusRequest.newBuilder().setContainerId(running.getFirst().containerId()).build();
        results.add(measure("ContainerStatus", direct, sides,
            client -> client.runtime(CHEAP_CALL_DEADLINE).containerStatus(status), warmup, iterations));
        PodSandboxStatusRequest sandbox = PodSandboxStatusRequest.newBuilder().setPodSandboxId(running.getFirst().sandboxId()).build();
        results.add(measure("PodSandboxStatus", direct, sides,
            client -> client.runtime(CHEAP_CALL_DEADLINE).podSandboxStatus(sandbox), warmup, iterations));
        ListContainersRequest list = ListContainersRequest.getDefaultInstance();
        results.add(measure("ListContainers (%d pods)".formatted(pods), direct, sides,
            client -> client.runtime(CHEAP_CALL_DEADLINE).listContainers(list), warmup / 4, iterations / 5));
        out.latencies(results);
        List<Samples> loaded = residentSets(crigate, baseline);
        out.rss(pods, idle.getFirst(), loaded.getFirst());
        if (baseline != null) {
          out.baselineRss(idle.getLast(), loaded.getLast());
        }
      } finally {
        viaFleet.removeAll();
      }
      // Last, once crigate's JIT has settled: compiling the lifecycle paths for the first time
      // would otherwise take CPU from containerd and runc on a small node and show up as overhead.
      PodFleet baselineFleet = baseline == null ? null : new PodFleet(baseline.client(), image, workDir.resolve("logs"));
      out.lifecycle(measureLifecycles(directFleet, crigate, viaFleet, baseline, baselineFleet));
    }
    String markdown = out.markdown(runtimeEndpoint);
    System.out.println(markdown);
    if (report != null) {
      Files.writeString(report, markdown);
    }
    return 0;
  }

  /**
   * Restarts crigate on one state directory, as a node does; the first start may also build the JVM
   * class cache, so it is reported apart from the rest. With a baseline checkout, its restarts
   * alternate with these, so both see the same machine load and their medians can be compared.
   */
  private void timedStarts(BenchmarkReport out) throws Exception {
    Samples samples = new Samples();
    Samples baselineSamples = new Samples();
    for (int i = 0; i < starts; i++) {
      try (CrigateUnderBench crigate = startCrigate()) {
        samples.add(crigate.startToServing().toNanos());
      }
      if (baselineRepository != null) {
        try (CrigateUnderBench baseline = startBaseline()) {
          baselineSamples.add(baseline.startToServing().toNanos());
        }
      }
    }
    out.startsToServing(samples, baselineSamples);
  }

  private CrigateUnderBench startCrigate() throws Exception {
    return CrigateUnderBench.start(repository.toAbsolutePath(), workDir, runtimeEndpoint, crigateConfig,
        javaOpts(crigateJavaOpts));
  }

  private CrigateUnderBench startBaseline() throws Exception {
    return CrigateUnderBench.start(baselineRepository.toAbsolutePath(), workDir.resolve("baseline"), runtimeEndpoint, null,
        javaOpts(baselineJavaOpts));
  }

  private static String describe(Path checkout, String javaOpts) {
    return checkout.toAbsolutePath().normalize() + (javaOpts == null || javaOpts.isBlank() ? "" : " with `" + javaOpts + "`");
  }

  /** bin/crigate reads extra JVM options from CRIGATE_JAVA_OPTS; none given leaves the launcher's own. */
  private static Map<String, String> javaOpts(String options) {
    return options == null || options.isBlank() ? Map.of() : Map.of("CRIGATE_JAVA_OPTS", options);
  }

  /**
   * Reads each side's resident set {@value #RSS_READINGS} times, a second apart and alternating: the
   * JIT's compiler arenas come and go and the native heap is trimmed once a second, so one reading
   * moves by several MiB from one moment to the next.
   */
  private static List<Samples> residentSets(CrigateUnderBench crigate, CrigateUnderBench baseline) throws Exception {
    List<CrigateUnderBench> sides = baseline == null ? List.of(crigate) : List.of(crigate, baseline);
    List<Samples> readings = sides.stream().map(side -> new Samples()).toList();
    for (int i = 0; i < RSS_READINGS; i++) {
      Thread.sleep(RSS_READING_INTERVAL);
      for (int s = 0; s < sides.size(); s++) {
        readings.get(s).add(sides.get(s).residentBytes());
      }
    }
    return readings;
  }

  /** One CRI call, made the same way on every side. */
  @FunctionalInterface
  private interface Call<R> {
    R on(CriClient client);
  }

  /**
   * An intermediary between the harness and the runtime: its name in the report, its client, its CPU
   * clock, and its I/O thread's (null: one process, one thread).
   */
  private record Via(String name, Supplier<CriClient> client, PairedLatency.CpuClock cpu, PairedLatency.CpuClock ioCpu) {}

  /** Call by call, so the tails of the sides are comparable too ({@link PairedLatency#interleaved}). */
  private static PairedLatency.Result measure(String name, CriClient direct, List<Via> sides, Call<?> call, int warmup,
      int iterations) throws Exception {
    return PairedLatency.interleaved(name, () -> call.on(direct),
        sides.stream().map(via -> new PairedLatency.Side(via.name(), () -> call.on(via.client().get()), via.cpu(), via.ioCpu()))
            .toList(),
        warmup, iterations);
  }

  private BenchmarkReport.Lifecycle measureLifecycles(PodFleet direct, CrigateUnderBench crigate, PodFleet via,
      CrigateUnderBench baseline, PodFleet baselineFleet) throws Exception {
    List<LifecycleRounds.Side> sides = new ArrayList<>(List.of(
        new LifecycleRounds.Side("direct", direct), new LifecycleRounds.Side(BenchmarkReport.CRIGATE, via)));
    List<LifecycleRounds.Meter> meters = new ArrayList<>(List.of(new LifecycleRounds.Meter("crigate process", crigate::cpuNanos),
        threadGroups("crigate", crigate)));
    if (baseline != null) {
      sides.add(new LifecycleRounds.Side(BenchmarkReport.BASELINE, baselineFleet));
      meters.add(new LifecycleRounds.Meter("baseline process", baseline::cpuNanos));
      meters.add(threadGroups("baseline", baseline));
    }
    if (runtimePid != null) {
      meters.add(new LifecycleRounds.Meter("runtime (pid %d, without its shims)".formatted(runtimePid),
          () -> ProcessCpu.nanos(runtimePid)));
    }
    return new BenchmarkReport.Lifecycle(LifecycleRounds.run(sides, meters, LIFECYCLE_WARMUP, lifecycles));
  }

  /** Where a crigate process's CPU goes, by what its threads do: one row per {@link ProcessCpu.JvmThreads} group. */
  private static LifecycleRounds.Meter threadGroups(String process, CrigateUnderBench side) {
    return new LifecycleRounds.Meter(Arrays.stream(ProcessCpu.JvmThreads.values())
        .map(group -> "%s: %s".formatted(process, group.label)).toList(), side::cpuNanosByThreadGroup);
  }

}
