package io.crigate.bench;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerMetadata;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.LinuxPodSandboxConfig;
import io.crigate.api.cri.v1.LinuxSandboxSecurityContext;
import io.crigate.api.cri.v1.NamespaceMode;
import io.crigate.api.cri.v1.NamespaceOption;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.RemoveContainerRequest;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import io.crigate.api.cri.v1.StopPodSandboxRequest;
import io.crigate.spi.adjust.ResourceAnnotation;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Issue 12 item 8: what {@code topology-aware} adds to CreateContainer against {@code none}, on real
 * containerd, in one run. Two {@code crigate serve} processes share the containerd; each has one
 * pod, and each iteration creates a container through both (the order rotates), timed from the
 * client, then removes both untimed. The containers are Burstable 100m (the webhook's annotation),
 * so topology-aware places them in a pool and pins their cpuset.
 *
 * <p>Each call is also split into stages from the serving crigate's own metrics, scraped before and
 * after it: the time crigate served it, the time its backend (containerd) took, and the difference,
 * crigate's own part (policy, state DB, request rewriting). containerd's time varies by tens of ms on
 * a busy machine, so the added cost is reported as the median of each iteration's own difference
 * (both sides ran within it) with a bootstrap 95% interval, besides the difference of the medians.
 *
 * <p>With {@code --baseline-repository}, a second pair of crigates runs from that checkout's build in
 * the same iterations, so a change is compared with its baseline under the same load.
 *
 * <p>Usage: {@code PolicyCreateLatencyBenchmark --runtime-endpoint unix://... --image ... [--repository .]
 * [--baseline-repository dir] [--work-dir dir] [--iterations 200] [--warmup 10]}.
 */
public final class PolicyCreateLatencyBenchmark {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private PolicyCreateLatencyBenchmark() {}

  /** One crigate under test with its pod, and what it measured. */
  record Side(String policy, CrigateUnderBench crigate, MetricsScrape metrics, PodSandboxConfig pod, String sandboxId,
      String image, Stages stages) {
    RuntimeServiceBlockingStub runtime() {
      return crigate.client().runtime(DEADLINE);
    }
  }

  /** One build's two crigates: {@code none} and {@code topology-aware}. */
  record Build(String label, Side none, Side aware) {}

  public static void main(String[] args) throws Exception {
    String endpoint = TtrpcRoundTripBenchmark.option(args, "--runtime-endpoint", null);
    String image = TtrpcRoundTripBenchmark.option(args, "--image", null);
    Path repository = Path.of(TtrpcRoundTripBenchmark.option(args, "--repository", "."));
    String baseline = TtrpcRoundTripBenchmark.option(args, "--baseline-repository", "");
    Path work = Path.of(TtrpcRoundTripBenchmark.option(args, "--work-dir", "/tmp/crigate-policy-bench"));
    int iterations = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--iterations", "200"));
    int warmup = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--warmup", "10"));
    List<Build> builds = new ArrayList<>();
    try {
      builds.add(build("this build", repository, work.resolve("build"), endpoint, image));
      if (!baseline.isEmpty()) {
        builds.add(build("baseline " + baseline, Path.of(baseline), work.resolve("baseline"), endpoint, image));
      }
      List<Side> sides = builds.stream().flatMap(b -> Stream.of(b.none(), b.aware())).toList();
      double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      for (int i = 0; i < warmup + iterations; i++) {
        // Each side takes each place in the order equally often: the first call after the others'
        // removals may find containerd (and the CPU caches) in another state than the last.
        for (int k = 0; k < sides.size(); k++) {
          Side side = sides.get((i + k) % sides.size());
          create(side, i, i < warmup ? new Stages() : side.stages());
        }
      }
      System.out.printf(Locale.ROOT, "CreateContainer on real containerd, %d per side (after %d warm-up), load average %.2f at start, %.2f at end%n",
          iterations, warmup, loadBefore, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.println("| build | policy | client p50 ms | client p99 ms | crigate served p50 ms | containerd p50 ms | crigate's own p50 µs | own p99 µs | crigate CPU p50 µs |");
      System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|");
      for (Build build : builds) {
        for (Side side : List.of(build.none(), build.aware())) {
          Stages st = side.stages();
          System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f |%n", build.label(), side.policy(),
              st.client.percentileMicros(50) / 1000, st.client.percentileMicros(99) / 1000, st.served.percentileMicros(50) / 1000,
              st.backend.percentileMicros(50) / 1000, st.own.percentileMicros(50), st.own.percentileMicros(99), st.cpu.percentileMicros(50));
        }
      }
      System.out.println("| build | added p50 µs, whole call: paired [95%] / of medians | own part: paired [95%] / of medians | CPU: paired [95%] / of medians |");
      System.out.println("|---|---:|---:|---:|");
      for (Build build : builds) {
        Stages none = build.none().stages();
        Stages aware = build.aware().stages();
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", build.label(), added(aware.client, none.client),
            added(aware.own, none.own), added(aware.cpu, none.cpu));
      }
    } finally {
      for (Build build : builds) {
        for (Side side : List.of(build.none(), build.aware())) {
          side.runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
          side.runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
          side.crigate().close();
        }
      }
    }
  }

  /** The median of the iterations' own differences with its interval, and the difference of the medians, in µs. */
  private static String added(Samples policy, Samples none) {
    MedianRatio paired = MedianRatio.pairedDifference(policy, none);
    return String.format(Locale.ROOT, "%+.0f [%+.0f, %+.0f] / %+.0f", paired.ratio() / 1000, paired.low() / 1000,
        paired.high() / 1000, policy.percentileMicros(50) - none.percentileMicros(50));
  }

  private static Build build(String label, Path repository, Path work, String endpoint, String image) throws Exception {
    Side none = start("none", "active: none", repository, work, endpoint, image);
    try {
      return new Build(label, none, start("topology-aware", "active: topology-aware\n  reservedCpus: \"0\"", repository, work, endpoint, image));
    } catch (Exception | Error e) {
      none.crigate().close();
      throw e;
    }
  }

  /**
   * One side's samples, in nanoseconds: at the client, served by crigate, in containerd, crigate's
   * own part, and the CPU the crigate process used meanwhile (all threads: on a loaded machine the
   * wall time of the own part is mostly waiting for a CPU, and grows with the load; this does not).
   */
  static final class Stages {
    final Samples cpu = new Samples();
    final Samples client = new Samples();
    final Samples served = new Samples();
    final Samples backend = new Samples();
    final Samples own = new Samples();
  }

  private static Side start(String policy, String settings, Path repository, Path work, String endpoint, String image)
      throws Exception {
    Path dir = Files.createDirectories(work.resolve(policy));
    Path config = dir.resolve("crigate.yaml");
    Files.writeString(config, "policy:\n  %s\n  kubeletCpuManagerState: %s\nmetrics:\n  enabled: true\n  port: 0\n"
        .formatted(settings, dir.resolve("no-kubelet-state")));
    CrigateUnderBench crigate = CrigateUnderBench.start(repository, dir, endpoint, config);
    MetricsScrape metrics = MetricsScrape.fromLog(dir.resolve("crigate.log"), "CreateContainer");
    String name = "policy-bench-" + work.getFileName() + "-" + policy;
    Path logs = Files.createDirectories(dir.resolve("pods"));
    PodSandboxConfig pod = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("crigate-bench").setUid(name + "-" + ProcessHandle.current().pid()))
        .setLogDirectory(logs.toString())
        .putAnnotations(ResourceAnnotation.KEY, ResourceAnnotation.format(Map.of("app", Map.of("requests", Map.of("cpu", "100m"), "limits", Map.of()))))
        .setLinux(LinuxPodSandboxConfig.newBuilder().setSecurityContext(LinuxSandboxSecurityContext.newBuilder()
            .setNamespaceOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE))))
        .build();
    crigate.client().images(DEADLINE).pullImage(PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
    String sandboxId = crigate.client().runtime(DEADLINE).runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build())
        .getPodSandboxId();
    return new Side(policy, crigate, metrics, pod, sandboxId, image, new Stages());
  }

  /** Creates a container through {@code side} (timed, and split into stages) and removes it (untimed). */
  private static void create(Side side, int attempt, Stages stages) throws Exception {
    ContainerConfig container = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("app").setAttempt(attempt))
        .setImage(ImageSpec.newBuilder().setImage(side.image()))
        .addCommand("/bin/sleep").addArgs("3600")
        .setLogPath("app-" + attempt + ".log")
        .build();
    MetricsScrape.Sums before = side.metrics().sums();
    long cpu = side.crigate().cpuNanos();
    long start = System.nanoTime();
    String id = side.runtime().createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(side.sandboxId())
        .setConfig(container).setSandboxConfig(side.pod()).build()).getContainerId();
    stages.client.add(System.nanoTime() - start);
    stages.cpu.add(side.crigate().cpuNanos() - cpu);
    MetricsScrape.Sums after = side.metrics().sums();
    stages.served.add(after.servedNanosSince(before));
    stages.backend.add(after.backendNanosSince(before));
    stages.own.add(after.ownNanosSince(before));
    side.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(id).build());
  }
}
