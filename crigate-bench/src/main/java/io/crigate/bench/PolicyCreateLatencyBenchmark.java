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
import java.util.Locale;
import java.util.Map;

/**
 * Issue 12 item 8: what {@code topology-aware} adds to CreateContainer against {@code none}, on real
 * containerd, in one run. Two {@code crigate serve} processes share the containerd; each has one
 * pod, and each iteration creates a container through both (the order alternates), timed from the
 * client, then removes both untimed. The containers are Burstable 100m (the webhook's annotation),
 * so topology-aware places them in a pool and pins their cpuset.
 *
 * <p>Each call is also split into stages from the serving crigate's own metrics, scraped before and
 * after it: the time crigate served it, the time its backend (containerd) took, and the difference,
 * crigate's own part (policy, state DB, request rewriting). containerd's time varies by tens of ms on
 * a busy machine, so the added p50 of whole calls needs many samples to resolve 0.5 ms; the own part
 * does not carry that noise.
 *
 * <p>Usage: {@code PolicyCreateLatencyBenchmark --runtime-endpoint unix://... --image ... [--repository .]
 * [--work-dir dir] [--iterations 200] [--warmup 10]}.
 */
public final class PolicyCreateLatencyBenchmark {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private PolicyCreateLatencyBenchmark() {}

  /** One crigate under test with its pod. */
  record Side(String policy, CrigateUnderBench crigate, MetricsScrape metrics, PodSandboxConfig pod, String sandboxId, String image) {
    RuntimeServiceBlockingStub runtime() {
      return crigate.client().runtime(DEADLINE);
    }
  }

  public static void main(String[] args) throws Exception {
    String endpoint = TtrpcRoundTripBenchmark.option(args, "--runtime-endpoint", null);
    String image = TtrpcRoundTripBenchmark.option(args, "--image", null);
    Path repository = Path.of(TtrpcRoundTripBenchmark.option(args, "--repository", "."));
    Path work = Path.of(TtrpcRoundTripBenchmark.option(args, "--work-dir", "/tmp/crigate-policy-bench"));
    int iterations = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--iterations", "200"));
    int warmup = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--warmup", "10"));
    Side none = start("none", "active: none", repository, work, endpoint, image);
    Side aware = start("topology-aware", "active: topology-aware\n  reservedCpus: \"0\"", repository, work, endpoint, image);
    try {
      Stages noneStages = new Stages();
      Stages awareStages = new Stages();
      double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      for (int i = 0; i < warmup + iterations; i++) {
        boolean noneFirst = i % 2 == 0;
        Side first = noneFirst ? none : aware;
        Side second = noneFirst ? aware : none;
        Stages firstStages = i < warmup ? new Stages() : noneFirst ? noneStages : awareStages;
        Stages secondStages = i < warmup ? new Stages() : noneFirst ? awareStages : noneStages;
        create(first, i, firstStages);
        create(second, i, secondStages);
      }
      System.out.printf(Locale.ROOT, "CreateContainer on real containerd, %d per side (after %d warm-up), load average %.2f at start, %.2f at end%n",
          iterations, warmup, loadBefore, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.println("| policy | client p50 ms | client p99 ms | crigate served p50 ms | containerd p50 ms | crigate's own p50 µs | own p99 µs | crigate CPU p50 µs |");
      System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
      for (var side : Map.of("none", noneStages, "topology-aware", awareStages).entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
        Stages st = side.getValue();
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f |%n", side.getKey(),
            st.client.percentileMicros(50) / 1000, st.client.percentileMicros(99) / 1000, st.served.percentileMicros(50) / 1000,
            st.backend.percentileMicros(50) / 1000, st.own.percentileMicros(50), st.own.percentileMicros(99), st.cpu.percentileMicros(50));
      }
      System.out.printf(Locale.ROOT, "added p50, whole calls: %.2f ms; crigate's own part: %.0f µs; crigate's CPU: %.0f µs%n",
          (awareStages.client.percentileMicros(50) - noneStages.client.percentileMicros(50)) / 1000,
          awareStages.own.percentileMicros(50) - noneStages.own.percentileMicros(50),
          awareStages.cpu.percentileMicros(50) - noneStages.cpu.percentileMicros(50));
    } finally {
      for (Side side : new Side[] {none, aware}) {
        side.runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
        side.runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
        side.crigate().close();
      }
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
    String name = "policy-bench-" + policy;
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
    return new Side(policy, crigate, metrics, pod, sandboxId, image);
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
