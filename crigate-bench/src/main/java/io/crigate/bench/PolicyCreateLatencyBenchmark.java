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
 * so topology-aware places them in a pool and pins their cpuset, which runc then writes.
 *
 * <p>Usage: {@code PolicyCreateLatencyBenchmark --runtime-endpoint unix://... --image ... [--repository .]
 * [--work-dir dir] [--iterations 60] [--warmup 5]}.
 */
public final class PolicyCreateLatencyBenchmark {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private PolicyCreateLatencyBenchmark() {}

  /** One crigate under test with its pod. */
  record Side(String policy, CrigateUnderBench crigate, PodSandboxConfig pod, String sandboxId, String image) {
    RuntimeServiceBlockingStub runtime() {
      return crigate.client().runtime(DEADLINE);
    }
  }

  public static void main(String[] args) throws Exception {
    String endpoint = TtrpcRoundTripBenchmark.option(args, "--runtime-endpoint", null);
    String image = TtrpcRoundTripBenchmark.option(args, "--image", null);
    Path repository = Path.of(TtrpcRoundTripBenchmark.option(args, "--repository", "."));
    Path work = Path.of(TtrpcRoundTripBenchmark.option(args, "--work-dir", "/tmp/crigate-policy-bench"));
    int iterations = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--iterations", "60"));
    int warmup = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--warmup", "5"));
    Side none = start("none", "active: none", repository, work, endpoint, image);
    Side aware = start("topology-aware", "active: topology-aware\n  reservedCpus: \"0\"", repository, work, endpoint, image);
    try {
      Samples noneSamples = new Samples();
      Samples awareSamples = new Samples();
      for (int i = 0; i < warmup + iterations; i++) {
        boolean noneFirst = i % 2 == 0;
        long first = create(noneFirst ? none : aware, i);
        long second = create(noneFirst ? aware : none, i);
        if (i >= warmup) {
          noneSamples.add(noneFirst ? first : second);
          awareSamples.add(noneFirst ? second : first);
        }
      }
      System.out.printf(Locale.ROOT, "CreateContainer on real containerd, %d per side (after %d warm-up), load average %.2f%n",
          iterations, warmup, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.println("| policy | p50 ms | p99 ms |");
      System.out.println("|---|---:|---:|");
      for (var side : Map.of("none", noneSamples, "topology-aware", awareSamples).entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", side.getKey(), side.getValue().percentileMicros(50) / 1000,
            side.getValue().percentileMicros(99) / 1000);
      }
      System.out.printf(Locale.ROOT, "added p50: %.2f ms%n", (awareSamples.percentileMicros(50) - noneSamples.percentileMicros(50)) / 1000);
    } finally {
      for (Side side : new Side[] {none, aware}) {
        side.runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
        side.runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(side.sandboxId()).build());
        side.crigate().close();
      }
    }
  }

  private static Side start(String policy, String settings, Path repository, Path work, String endpoint, String image)
      throws Exception {
    Path dir = Files.createDirectories(work.resolve(policy));
    Path config = dir.resolve("crigate.yaml");
    Files.writeString(config, "policy:\n  %s\n  kubeletCpuManagerState: %s\n".formatted(settings, dir.resolve("no-kubelet-state")));
    CrigateUnderBench crigate = CrigateUnderBench.start(repository, dir, endpoint, config);
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
    return new Side(policy, crigate, pod, sandboxId, image);
  }

  /** Creates a container through {@code side} (timed) and removes it (untimed). */
  private static long create(Side side, int attempt) {
    ContainerConfig container = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("app").setAttempt(attempt))
        .setImage(ImageSpec.newBuilder().setImage(side.image()))
        .addCommand("/bin/sleep").addArgs("3600")
        .setLogPath("app-" + attempt + ".log")
        .build();
    long start = System.nanoTime();
    String id = side.runtime().createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(side.sandboxId())
        .setConfig(container).setSandboxConfig(side.pod()).build()).getContainerId();
    long elapsed = System.nanoTime() - start;
    side.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(id).build());
    return elapsed;
  }
}
