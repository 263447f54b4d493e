package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The runtime hooks give the same container settings in proxy mode ({@code crigate serve} in the
 * request path) and standalone mode ({@code crigate hooks-reconciler} beside a containerd the pods
 * talk to directly), on real containerd A; and how long after start each mode's settings are in
 * force. Settings are read on the host from the container's cgroups and its init process.
 */
class HookModesIT {

  static final Infra infra = Infra.fromEnvironment();

  /** Root here lacks CAP_SYS_RESOURCE, so no OOM score may go below containerd's own (0). */
  static final String HOOKS = """
      hooks:
        mode: %s
        resync: 30s
        QoSClass: {classes: {LSR: {oomScoreAdj: 100}}}
      """;

  @RegisterExtension
  static final CrigateExtension proxy = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig(HOOKS.formatted("proxy"));

  static final ObjectMapper JSON = new ObjectMapper();
  static final Path CGROUPS = Path.of("/sys/fs/cgroup");
  static Process reconciler;
  static Path reconcilerLog;
  static CriConnection direct;

  /** What the hooks set, as the host sees it; -2 where the kernel file is absent. */
  record Observed(long cpuShares, long cfsQuota, long memoryLimit, String cpusetCpus, long oomScoreAdj,
      String visibleDevices) {}

  record Case(String name, Map<String, String> labels, Map<String, String> annotations, Observed expected) {}

  /**
   * @param first what the first read after StartContainer returned saw
   * @param firstRead when that read was done
   * @param inForceAfterStart when the expected values were first seen
   */
  record Outcome(Observed first, Duration firstRead, Observed observed, Duration inForceAfterStart) {}

  static final String BATCH_SPEC = """
      {"containers":{"app":{"requests":{"kubernetes.io/batch-cpu":"500","kubernetes.io/batch-memory":"128Mi"},\
      "limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"256Mi"}}}}""";

  static final List<Case> CASES = List.of(
      // QoSClass BE: shares 2 and OOM 1000; BatchResource (later) sets shares 512, a 1-CPU quota, 256Mi
      new Case("be-batch", Map.of("koordinator.sh/qosClass", "BE"),
          Map.of("node.koordinator.sh/extended-resource-spec", BATCH_SPEC),
          new Observed(512, 100_000, 256L << 20, null, 1000, "")),
      // CPUSetAllocator: pinned to CPU 0 with the quota lifted; QoSClass LSR's OOM score from the table
      new Case("lsr-cpuset", Map.of("koordinator.sh/qosClass", "LSR"),
          Map.of("scheduling.koordinator.sh/resource-status", "{\"cpuset\":\"0\"}"),
          new Observed(1024, -1, -2, "0", 100, "")),
      // a malformed batch spec: BatchResource is fail-open, so the pod runs with QoSClass's values only
      new Case("be-bad-spec", Map.of("koordinator.sh/qosClass", "BE"),
          Map.of("node.koordinator.sh/extended-resource-spec", "{\"containers\":{\"app\":{\"limits\":"
              + "{\"kubernetes.io/batch-memory\":\"lots\"}}}}"),
          new Observed(2, -1, -2, null, 1000, "")),
      // GPUEnvInject: env before the process starts
      new Case("gpu", Map.of(), Map.of("scheduling.koordinator.sh/device-allocated",
          "{\"gpu\":[{\"minor\":0},{\"minor\":1}]}"), new Observed(1024, -1, -2, null, 0, "0,1")));

  @BeforeAll
  static void connectDirectly() {
    direct = CriConnection.open(infra.containerdA());
  }

  /** Started only for the standalone run, so it cannot correct what proxy mode left. */
  static void startStandaloneReconciler() throws IOException {
    Path config = Files.writeString(proxy.workDir().resolve("standalone.yaml"), HOOKS.formatted("standalone"));
    reconcilerLog = proxy.workDir().resolve("hooks-reconciler.log");
    reconciler = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), "hooks-reconciler",
        "--config", config.toString(), "--remote-runtime-endpoints", "default:" + infra.containerdA())
        .redirectErrorStream(true).redirectOutput(reconcilerLog.toFile()).start();
    await("hooks-reconciler watching").atMost(Duration.ofSeconds(90))
        .failFast("hooks-reconciler exited", () -> !reconciler.isAlive())
        .until(() -> Files.readString(reconcilerLog).contains("runtime hooks in standalone mode"));
  }

  @AfterAll
  static void stopReconciler() throws InterruptedException {
    if (direct != null) {
      direct.close();
    }
    if (reconciler != null) {
      reconciler.destroy();
      if (!reconciler.waitFor(15, TimeUnit.SECONDS)) {
        reconciler.destroyForcibly();
      }
    }
  }

  @Test
  void proxyAndStandaloneModesLeaveTheSameSettingsAndSayWhenTheyWereInForce() throws Exception {
    Map<String, Outcome> viaProxy = runAll(proxy.cri(), "proxy");
    startStandaloneReconciler();
    Map<String, Outcome> standalone = runAll(direct, "standalone");

    StringBuilder table = new StringBuilder("| pod | proxy: in force at the first read after start | "
        + "standalone: in force after start |\n|---|---|---:|\n");
    for (Case c : CASES) {
      Observed expectedStandalone = c.expected().visibleDevices().isEmpty() ? c.expected()
          : withoutEnv(c.expected());
      assertThat(viaProxy.get(c.name()).first()).as("proxy mode, at once, " + c.name()).isEqualTo(c.expected());
      assertThat(standalone.get(c.name()).observed()).as("standalone mode, " + c.name() + "; reconciler log:\n"
          + tail(reconcilerLog)).isEqualTo(expectedStandalone);
      assertThat(withoutEnv(standalone.get(c.name()).observed())).isEqualTo(withoutEnv(viaProxy.get(c.name()).observed()));
      table.append("| %s | yes (read %d ms after start) | %d ms |\n".formatted(c.name(),
          viaProxy.get(c.name()).firstRead().toMillis(), standalone.get(c.name()).inForceAfterStart().toMillis()));
    }
    Files.writeString(Path.of("target", "hook-modes.md"), table);
    System.out.println(table);
  }

  @Test
  void aMalformedCpusetAnnotationRejectsThePodInProxyModeNamingTheAnnotation() {
    PodSandboxConfig pod = pod("bad-cpuset-" + System.nanoTime(), Map.of("koordinator.sh/qosClass", "LSR"),
        Map.of("scheduling.koordinator.sh/resource-status", "{\"cpuset\":\"zero\"}"));

    assertThatThrownBy(() -> proxy.cri().runtime().runPodSandbox(runPod(pod, "")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription())
              .contains("CPUSetAllocator", "scheduling.koordinator.sh/resource-status", "cpuset");
        });
    assertThat(direct.podUids()).as("nothing created on containerd").doesNotContain(pod.getMetadata().getUid());
  }

  private static Observed withoutEnv(Observed o) {
    return new Observed(o.cpuShares(), o.cfsQuota(), o.memoryLimit(), o.cpusetCpus(), o.oomScoreAdj(), "");
  }

  private PodSandboxConfig pod(String name, Map<String, String> labels, Map<String, String> annotations) {
    PodSandboxConfig base = hostNetworkPod(name, proxy.workDir().resolve("pods"));
    return base.toBuilder().putAllLabels(labels).putAllAnnotations(annotations).build();
  }

  private Map<String, Outcome> runAll(CriConnection cri, String mode) throws Exception {
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    List<String> pods = new ArrayList<>();
    try {
      for (Case c : CASES) {
        PodSandboxConfig pod = pod("hooks-" + mode + "-" + c.name() + "-" + System.nanoTime() % 100_000,
            c.labels(), c.annotations());
        String podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
        pods.add(podId);
        cri.images().pullImage(pull(infra.baseImage(), pod, ""));
        String id = cri.runtime().createContainer(create(podId,
            kubeletResources(shellContainer("app", infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done")),
            pod)).getContainerId();
        cri.runtime().startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
        long started = System.nanoTime();
        long pid = pid(cri, id);
        Observed first = observe(pid);
        Duration firstRead = Duration.ofNanos(System.nanoTime() - started);
        Observed observed = first;
        while (!matches(observed, c.expected(), mode) && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(30)) {
          Thread.sleep(2);
          observed = observe(pid);
        }
        outcomes.put(c.name(), new Outcome(first, firstRead, observed, Duration.ofNanos(System.nanoTime() - started)));
      }
    } finally {
      for (String podId : pods) {
        cri.removePod(podId);
      }
    }
    return outcomes;
  }

  /**
   * Resources as the kubelet always sends them (here: a 1-CPU request); without any, containerd
   * leaves the OOM score the shim's, which crigate's proxy, which always sends resources, would not.
   */
  private static ContainerConfig kubeletResources(ContainerConfig config) {
    return config.toBuilder().setLinux(LinuxContainerConfig.newBuilder()
        .setResources(LinuxContainerResources.newBuilder().setCpuShares(1024).setCpuPeriod(100_000))).build();
  }

  private static boolean matches(Observed observed, Observed expected, String mode) {
    return mode.equals("proxy") ? observed.equals(expected) : withoutEnv(observed).equals(withoutEnv(expected));
  }

  private static long pid(CriConnection cri, String containerId) throws IOException {
    String info = cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId)
        .setVerbose(true).build()).getInfoMap().get("info");
    return JSON.readTree(info).path("pid").asLong();
  }

  /** The container's settings from its cgroups (v1 or v2) and its init process. */
  static Observed observe(long pid) throws IOException {
    Map<String, Path> dirs = cgroupDirs(pid);
    Path proc = Path.of("/proc", Long.toString(pid));
    boolean v2 = dirs.containsKey("");
    long shares = v2 ? -2 : number(dirs.get("cpu"), "cpu.shares");
    long quota = v2 ? -2 : number(dirs.get("cpu"), "cpu.cfs_quota_us");
    long memory = v2 ? -2 : number(dirs.get("memory"), "memory.limit_in_bytes");
    String cpuset = text(dirs.get("cpuset"), "cpuset.cpus");
    String online = Files.readString(CGROUPS.resolve("cpuset/cpuset.cpus")).strip();
    long oom = Long.parseLong(Files.readString(proc.resolve("oom_score_adj")).strip());
    String devices = Arrays.stream(new String(Files.readAllBytes(proc.resolve("environ"))).split("\0"))
        .filter(e -> e.startsWith("NVIDIA_VISIBLE_DEVICES=")).map(e -> e.substring(e.indexOf('=') + 1))
        .findFirst().orElse("");
    // an unlimited memory cgroup reads as a huge page-aligned number; the whole machine's CPUs as none
    return new Observed(shares, quota, memory >= Long.MAX_VALUE / 2 ? -2 : memory,
        cpuset.equals(online) ? null : cpuset, oom, devices);
  }

  private static Map<String, Path> cgroupDirs(long pid) throws IOException {
    Map<String, Path> dirs = new HashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
      String[] parts = line.split(":", 3);
      if (parts[1].isEmpty()) {
        dirs.putIfAbsent("", CGROUPS.resolve(parts[2].substring(1)));
        continue;
      }
      for (String controller : parts[1].split(",")) {
        dirs.put(controller, CGROUPS.resolve(parts[1]).resolve(parts[2].substring(1)));
      }
    }
    if (dirs.containsKey("cpu")) {
      dirs.remove("");
    }
    return dirs;
  }

  private static long number(Path dir, String file) throws IOException {
    return Long.parseLong(text(dir, file));
  }

  private static String text(Path dir, String file) throws IOException {
    return Files.readString(dir.resolve(file)).strip();
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
