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
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The runtime hooks give the same container and pod settings in all three modes on real containerd
 * A: proxy ({@code crigate serve} with the hooks in its request path), NRI ({@code crigate serve}
 * hosting NRI, {@code crigate nri-plugin} running the hooks on its socket, since containerd 1.6 has
 * no NRI) and standalone ({@code crigate hooks-reconciler} beside a containerd the pods talk to
 * directly); how long after start each mode's settings are in force; and that a live change of
 * the hook settings reaches each mode. Settings are read on the host: the container's cgroups and
 * init process, and the pod's cgroup, which the test creates as the kubelet does.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HookModesIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Path DIR = ShortTempDir.create("hooks-it-");
  static final Path NRI_SOCKET = DIR.resolve("nri.sock");
  static final Path CGROUPS = Path.of("/sys/fs/cgroup");
  /** The parent of this run's pod cgroups, in every hierarchy, as the kubelet's kubepods. */
  static final String POD_CGROUPS = "crigate-it-hooks-" + ProcessHandle.current().pid();

  enum Mode {
    PROXY, NRI, STANDALONE;

    String key() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The live file of the mode's hook settings, the {@code configFile} of its section. */
    Path liveFile() {
      return DIR.resolve(key() + "-live.yaml");
    }

    /** One section for every mode; root here lacks CAP_SYS_RESOURCE, so no OOM score may go below 0. */
    String config() {
      return """
          hooks:
            mode: %s
            resync: 30s
            configFile: %s
            QoSClass: {classes: {LSR: {oomScoreAdj: 100}}}
          """.formatted(key(), liveFile());
    }
  }

  @RegisterExtension
  static final CrigateExtension proxy = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig(Mode.PROXY.config());

  @RegisterExtension
  static final CrigateExtension nriHost = CrigateExtension.nriHost(NRI_SOCKET, Mode.NRI.config(),
      "default:" + infra.containerdA());

  static final ObjectMapper JSON = new ObjectMapper();
  static CrigateCommand nriPlugin;
  static CrigateCommand reconciler;
  static CriConnection direct;

  /** The pod cgroup's values; -2 where the kernel file is absent or unlimited. */
  record PodLevel(long cpuShares, long cfsQuota, long memoryLimit) {}

  static final PodLevel KUBELET_POD = new PodLevel(1024, -1, -2);

  /** What the hooks set, as the host sees it; -2 where the kernel file is absent. */
  record Observed(long cpuShares, long cfsQuota, long memoryLimit, String cpusetCpus, long oomScoreAdj,
      String visibleDevices, PodLevel pod) {

    Observed withoutEnv() {
      return new Observed(cpuShares, cfsQuota, memoryLimit, cpusetCpus, oomScoreAdj, "", pod);
    }
  }

  record Case(String name, Map<String, String> labels, Map<String, String> annotations, Observed expected) {}

  /**
   * @param first what the first read after StartContainer returned saw
   * @param firstRead when that read was done
   * @param inForceAfterStart when the expected values were first seen
   */
  record Outcome(Observed first, Duration firstRead, Observed observed, Duration inForceAfterStart) {}

  /** A started container: its pod, the pod's cgroup and the container's init process. */
  record Started(CriConnection cri, String podId, String uid, String cgroupParent, long pid, long startedNanos) {}

  static final String BATCH_SPEC = """
      {"containers":{"app":{"requests":{"kubernetes.io/batch-cpu":"500","kubernetes.io/batch-memory":"128Mi"},\
      "limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"256Mi"}}}}""";

  static final List<Case> CASES = List.of(
      // QoSClass BE: shares 2 and OOM 1000; BatchResource (later) sets shares 512, a 1-CPU quota, 256Mi,
      // and the same for the pod cgroup at PreRunPodSandbox
      new Case("be-batch", Map.of("koordinator.sh/qosClass", "BE"),
          Map.of("node.koordinator.sh/extended-resource-spec", BATCH_SPEC),
          new Observed(512, 100_000, 256L << 20, null, 1000, "", new PodLevel(512, 100_000, 256L << 20))),
      // CPUSetAllocator: pinned to CPU 0 with the quota lifted; QoSClass LSR's OOM score from the table
      new Case("lsr-cpuset", Map.of("koordinator.sh/qosClass", "LSR"),
          Map.of("scheduling.koordinator.sh/resource-status", "{\"cpuset\":\"0\"}"),
          new Observed(1024, -1, -2, "0", 100, "", KUBELET_POD)),
      // a malformed batch spec: BatchResource is fail-open, so the pod runs with QoSClass's values only
      new Case("be-bad-spec", Map.of("koordinator.sh/qosClass", "BE"),
          Map.of("node.koordinator.sh/extended-resource-spec", "{\"containers\":{\"app\":{\"limits\":"
              + "{\"kubernetes.io/batch-memory\":\"lots\"}}}}"),
          new Observed(2, -1, -2, null, 1000, "", KUBELET_POD)),
      // GPUEnvInject: env before the process starts
      new Case("gpu", Map.of(), Map.of("scheduling.koordinator.sh/device-allocated",
          "{\"gpu\":[{\"minor\":0},{\"minor\":1}]}"), new Observed(1024, -1, -2, null, 0, "0,1", KUBELET_POD)));

  @BeforeAll
  static void connectDirectlyAndStartTheNriPlugin() throws IOException {
    direct = CriConnection.open(infra.containerdA());
    nriPlugin = CrigateCommand.nriPlugin(DIR, NRI_SOCKET, Mode.NRI.config(), nriHost);
  }

  @AfterAll
  static void stopAndCleanUp() throws IOException {
    if (direct != null) {
      direct.close();
    }
    stop(nriPlugin);
    stop(reconciler);
    for (Path hierarchy : hierarchies()) {
      removeCgroupTree(hierarchy.resolve(POD_CGROUPS));
    }
    ShortTempDir.delete(DIR);
  }

  @Test
  @Order(1)
  void everyModeLeavesTheSameSettingsAndSaysWhenTheyWereInForce() throws Exception {
    Map<Mode, Map<String, Outcome>> outcomes = new EnumMap<>(Mode.class);
    outcomes.put(Mode.PROXY, runAll(proxy.cri(), Mode.PROXY));
    outcomes.put(Mode.NRI, runAll(nriHost.cri(), Mode.NRI));
    // started only now, so it cannot correct what the other modes left
    startStandaloneReconciler();
    try {
      outcomes.put(Mode.STANDALONE, runAll(direct, Mode.STANDALONE));
    } finally {
      reconciler.stop();
    }

    StringBuilder table = new StringBuilder("| pod | proxy: in force at the first read after start | "
        + "NRI: in force at the first read after start | standalone: in force after start |\n|---|---|---|---:|\n");
    for (Case c : CASES) {
      Outcome viaProxy = outcomes.get(Mode.PROXY).get(c.name());
      Outcome viaNri = outcomes.get(Mode.NRI).get(c.name());
      Outcome standalone = outcomes.get(Mode.STANDALONE).get(c.name());
      assertThat(viaProxy.first()).as("proxy mode, at once, " + c.name()).isEqualTo(c.expected());
      assertThat(viaNri.first()).as("NRI mode, at once, " + c.name() + "; nri-plugin log:\n"
          + nriPlugin.tail()).isEqualTo(c.expected());
      // a started process cannot take new env: standalone gives everything else
      assertThat(standalone.observed()).as("standalone mode, " + c.name() + "; reconciler log:\n"
          + reconciler.tail()).isEqualTo(c.expected().withoutEnv());
      assertThat(viaNri.observed()).isEqualTo(viaProxy.observed());
      assertThat(standalone.observed()).isEqualTo(viaProxy.observed().withoutEnv());
      table.append("| %s | yes (read %d ms after start) | yes (read %d ms after start) | %d ms |\n".formatted(c.name(),
          viaProxy.firstRead().toMillis(), viaNri.firstRead().toMillis(), standalone.inForceAfterStart().toMillis()));
    }
    Files.writeString(Path.of("target", "hook-modes.md"), table);
    System.out.println(table);
  }

  @Test
  @Order(2)
  void aLiveChangeOfTheHookSettingsReachesEveryMode() throws Exception {
    String live = "QoSClass: {classes: {LSR: {oomScoreAdj: 100}, BE: {cpuShares: 8}}}\n";
    Case be = new Case("be-live", Map.of("koordinator.sh/qosClass", "BE"), Map.of(),
        new Observed(8, -1, -2, null, 1000, "", KUBELET_POD));

    replace(Mode.PROXY.liveFile(), live);
    await("serve swapped the hooks").atMost(Duration.ofSeconds(30))
        .until(() -> proxy.process().logTail().contains("runtime hooks now"));
    assertThat(runAll(proxy.cri(), Mode.PROXY, List.of(be)).get(be.name()).first()).isEqualTo(be.expected());

    replace(Mode.NRI.liveFile(), live);
    await("nri-plugin swapped the hooks").atMost(Duration.ofSeconds(30))
        .until(() -> nriPlugin.output().contains("runtime hooks now"));
    assertThat(runAll(nriHost.cri(), Mode.NRI, List.of(be)).get(be.name()).first()).isEqualTo(be.expected());

    // standalone: a container already running under the old settings is re-applied with the new ones
    startStandaloneReconciler();
    Started running = start(direct, Mode.STANDALONE, be);
    try {
      Observed before = new Observed(2, -1, -2, null, 1000, "", KUBELET_POD);
      await("the old settings, shares 2").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> observe(running).equals(before));
      replace(Mode.STANDALONE.liveFile(), live);
      await("the new settings on the running container; reconciler log:\n" + reconciler.tail())
          .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> observe(running).equals(be.expected()));
    } finally {
      remove(running);
      reconciler.stop();
    }
  }

  @Test
  @Order(3)
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

  private static void startStandaloneReconciler() throws IOException {
    Path config = Files.writeString(DIR.resolve("standalone.yaml"), Mode.STANDALONE.config());
    Path log = DIR.resolve("hooks-reconciler.log");
    Files.deleteIfExists(log);
    reconciler = CrigateCommand.start(log, "hooks-reconciler", "--config", config.toString(),
        "--remote-runtime-endpoints", "default:" + infra.containerdA());
    // its first pass walks every container already on the shared containerd A: the table times new ones
    await("hooks-reconciler's first pass").atMost(Duration.ofSeconds(120))
        .failFast("hooks-reconciler exited", () -> !reconciler.isAlive())
        .until(() -> reconciler.output().contains("standalone hooks: first pass done"));
  }

  private static void stop(CrigateCommand command) {
    if (command != null) {
      command.stop();
    }
  }

  /** As an operator should: a rename, so the watcher never reads a half-written file. */
  private static void replace(Path file, String yaml) throws IOException {
    Path next = Files.writeString(file.resolveSibling(file.getFileName() + ".next"), yaml);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * A pod whose cgroup parent exists before RunPodSandbox, as the kubelet makes it: in the
   * hierarchies the hooks write (the runtime creates the others).
   */
  private static PodSandboxConfig pod(String name, Map<String, String> labels, Map<String, String> annotations) {
    PodSandboxConfig base = hostNetworkPod(name, DIR.resolve("pods"));
    String parent = "/" + POD_CGROUPS + "/pod" + base.getMetadata().getUid();
    try {
      if (unified()) {
        Files.createDirectories(CGROUPS.resolve(parent.substring(1)));
      } else {
        for (String controller : List.of("cpu", "memory")) {
          Files.createDirectories(CGROUPS.resolve(controller).resolve(parent.substring(1)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return base.toBuilder().putAllLabels(labels).putAllAnnotations(annotations)
        .setLinux(base.getLinux().toBuilder().setCgroupParent(parent)).build();
  }

  private static Map<String, Outcome> runAll(CriConnection cri, Mode mode) throws Exception {
    return runAll(cri, mode, CASES);
  }

  private static Map<String, Outcome> runAll(CriConnection cri, Mode mode, List<Case> cases) throws Exception {
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    for (Case c : cases) {
      Started started = start(cri, mode, c);
      try {
        Observed first = observe(started);
        Duration firstRead = Duration.ofNanos(System.nanoTime() - started.startedNanos());
        Observed observed = first;
        Observed expected = mode == Mode.STANDALONE ? c.expected().withoutEnv() : c.expected();
        while (!(mode == Mode.STANDALONE ? observed.withoutEnv() : observed).equals(expected)
            && System.nanoTime() - started.startedNanos() < TimeUnit.SECONDS.toNanos(30)) {
          Thread.sleep(2);
          observed = observe(started);
        }
        outcomes.put(c.name(), new Outcome(first, firstRead, observed,
            Duration.ofNanos(System.nanoTime() - started.startedNanos())));
      } finally {
        remove(started);
      }
    }
    return outcomes;
  }

  private static Started start(CriConnection cri, Mode mode, Case c) throws IOException {
    PodSandboxConfig pod = pod("hooks-" + mode.key() + "-" + c.name() + "-" + System.nanoTime() % 100_000,
        c.labels(), c.annotations());
    String podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
    Started started = new Started(cri, podId, pod.getMetadata().getUid(), pod.getLinux().getCgroupParent(), 0, 0);
    try {
      cri.images().pullImage(pull(infra.baseImage(), pod, ""));
      String id = cri.runtime().createContainer(create(podId,
          kubeletResources(shellContainer("app", infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done")),
          pod)).getContainerId();
      cri.runtime().startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
      long startedNanos = System.nanoTime();
      return new Started(cri, podId, started.uid(), started.cgroupParent(), pid(cri, id), startedNanos);
    } catch (RuntimeException | IOException e) {
      remove(started);
      throw e;
    }
  }

  /** Removes the pod, then its cgroup, which the kubelet would. */
  private static void remove(Started started) {
    started.cri().removePod(started.podId());
    for (Path hierarchy : hierarchies()) {
      removeCgroupTree(hierarchy.resolve(started.cgroupParent().substring(1)));
    }
  }

  /**
   * Resources as the kubelet always sends them (here: a 1-CPU request); without any, containerd
   * leaves the OOM score the shim's, which crigate's proxy, which always sends resources, would not.
   */
  private static ContainerConfig kubeletResources(ContainerConfig config) {
    return config.toBuilder().setLinux(LinuxContainerConfig.newBuilder()
        .setResources(LinuxContainerResources.newBuilder().setCpuShares(1024).setCpuPeriod(100_000))).build();
  }

  private static long pid(CriConnection cri, String containerId) throws IOException {
    String info = cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId)
        .setVerbose(true).build()).getInfoMap().get("info");
    return JSON.readTree(info).path("pid").asLong();
  }

  /** The container's settings from its cgroups (v1 or v2) and its init process, and its pod cgroup's. */
  static Observed observe(Started started) throws IOException {
    Map<String, Path> dirs = cgroupDirs(started.pid());
    Path proc = Path.of("/proc", Long.toString(started.pid()));
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
    return new Observed(shares, quota, unlimited(memory), cpuset.equals(online) ? null : cpuset, oom, devices,
        podLevel(started.cgroupParent().substring(1), v2));
  }

  private static PodLevel podLevel(String parent, boolean v2) throws IOException {
    if (v2) {
      return new PodLevel(-2, -2, -2);
    }
    Path cpu = CGROUPS.resolve("cpu").resolve(parent);
    return new PodLevel(number(cpu, "cpu.shares"), number(cpu, "cpu.cfs_quota_us"),
        unlimited(number(CGROUPS.resolve("memory").resolve(parent), "memory.limit_in_bytes")));
  }

  private static long unlimited(long memory) {
    return memory >= Long.MAX_VALUE / 2 ? -2 : memory;
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

  private static boolean unified() {
    return Files.exists(CGROUPS.resolve("cgroup.controllers"));
  }

  /** The cgroup v2 root, or each v1 hierarchy (not the symlinks that alias co-mounted ones). */
  private static List<Path> hierarchies() {
    if (unified()) {
      return List.of(CGROUPS);
    }
    try (Stream<Path> mounts = Files.list(CGROUPS)) {
      return mounts.filter(p -> Files.isDirectory(p) && !Files.isSymbolicLink(p)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** rmdir, deepest first: a cgroup directory goes with its interface files, which cannot be deleted. */
  private static void removeCgroupTree(Path root) {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> tree = Files.walk(root)) {
      tree.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).forEach(dir -> {
        try {
          Files.delete(dir);
        } catch (IOException e) {
          System.err.println("cgroup " + dir + " left: " + e);
        }
      });
    } catch (IOException e) {
      System.err.println("cgroup tree " + root + " left: " + e);
    }
  }

  private static long number(Path dir, String file) throws IOException {
    return Long.parseLong(text(dir, file));
  }

  private static String text(Path dir, String file) throws IOException {
    return Files.readString(dir.resolve(file)).strip();
  }

}
