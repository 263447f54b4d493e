package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.ContainerEviction;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.KeyValue;
import io.crigate.api.nri.v1alpha1.LinuxCPU;
import io.crigate.api.nri.v1alpha1.LinuxContainerAdjustment;
import io.crigate.api.nri.v1alpha1.LinuxContainerUpdate;
import io.crigate.api.nri.v1alpha1.LinuxResources;
import io.crigate.api.nri.v1alpha1.OptionalInt64;
import io.crigate.api.nri.v1alpha1.OptionalUInt64;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.nri.NriHandler;
import io.crigate.nri.NriPlugin;
import io.crigate.testsupport.GoNriPeers;
import io.grpc.StatusRuntimeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * crigate as an NRI runtime for containerd 1.6, which has no NRI: external NRI plugins, one in Java
 * and one in Go (containerd's Go ttrpc), connect to crigate's NRI socket, and a pod run through
 * crigate gets its plugin's env var and CPU limit. Each plugin adjusts only the pods that name it in
 * {@value #SELECTOR}, so the two never set the same field of one container.
 */
class NriHostIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Path NRI_DIR = tempDir();
  static final Path NRI_SOCKET = NRI_DIR.resolve("nri.sock");

  /** containerd A as the default backend, the shared Slurm as handler {@code slurm}. */
  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("""
          nri:
            socket: %s
          backends:
            - name: hpc
              type: slurm
              handlers: [slurm]
              workDir: %s
              transport: local
              runner: none
              pollIntervalMillis: 300
          """.formatted(NRI_SOCKET, System.getenv("CRIGATE_SLURM_WORKDIR")));

  static final String SELECTOR = "crigate.test/nri-plugin";
  static final String CPUSET = "crigate.test/cpuset";
  static final String QUOTA = "crigate.test/cpu-quota";
  static NriPlugin plugin;
  static Process goPlugin;
  static BufferedReader goOut;
  /** The UpdatePodSandbox calls the Java plugin received: pod id and CPU shares. */
  static final List<String> podUpdates = new CopyOnWriteArrayList<>();

  /**
   * A third-party style NRI plugin: an env var and 1.5 CPUs for every container of the pods naming it;
   * a pod that also names a cpuset ({@value #CPUSET}) gets half a CPU of quota (or {@value #QUOTA})
   * and that cpuset. It records the pod resource updates it is sent.
   */
  static final class InjectPlugin implements NriHandler {
    @Override
    public Set<Event> events() {
      return Set.of(Event.CREATE_CONTAINER, Event.UPDATE_POD_SANDBOX);
    }

    @Override
    public void updatePodSandbox(PodSandbox pod, LinuxResources overhead, LinuxResources resources) {
      podUpdates.add(pod.getId() + " shares=" + resources.getCpu().getShares().getValue());
    }

    @Override
    public CreateContainerResponse createContainer(PodSandbox pod, Container container) {
      if (!"inject".equals(pod.getAnnotationsMap().get(SELECTOR))) {
        return CreateContainerResponse.getDefaultInstance();
      }
      LinuxCPU.Builder cpu = LinuxCPU.newBuilder().setQuota(OptionalInt64.newBuilder().setValue(150_000))
          .setPeriod(OptionalUInt64.newBuilder().setValue(100_000));
      String cpuset = pod.getAnnotationsMap().get(CPUSET);
      if (cpuset != null) {
        long quota = Long.parseLong(pod.getAnnotationsMap().getOrDefault(QUOTA, "50000"));
        cpu.setQuota(OptionalInt64.newBuilder().setValue(quota)).setCpus(cpuset);
      }
      return CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
          .addEnv(KeyValue.newBuilder().setKey("NRI_INJECTED").setValue("by-" + pod.getName()))
          .setLinux(LinuxContainerAdjustment.newBuilder().setResources(LinuxResources.newBuilder().setCpu(cpu)))).build();
    }
  }

  @BeforeAll
  static void connectPlugins() throws Exception {
    plugin = new NriPlugin(new NriPlugin.Settings("inject", "10", NRI_SOCKET, -1), new InjectPlugin()).start();
    Path goBinary = GoNriPeers.in(Path.of("target/go-nri")).build("nriplugin");
    goPlugin = new ProcessBuilder(goBinary.toString(), NRI_SOCKET.toString(), "goinject", "20")
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    goOut = new BufferedReader(new InputStreamReader(goPlugin.getInputStream(), StandardCharsets.UTF_8));
    assertThat(goOut.readLine()).isEqualTo("REGISTERED");
    // in service once crigate has configured and synchronized them, which its log says
    await("crigate hosting both plugins").atMost(Duration.ofSeconds(20))
        .until(() -> crigate.process().logTail().contains("NRI plugin 10-inject (NRI v0.12.2) in service")
            && crigate.process().logTail().contains("NRI plugin 20-goinject (NRI v0.12.2) in service"));
  }

  @AfterAll
  static void disconnect() throws IOException {
    if (plugin != null) {
      plugin.close();
    }
    if (goPlugin != null) {
      goPlugin.destroy();
    }
    Files.deleteIfExists(NRI_SOCKET);
    Files.deleteIfExists(NRI_DIR);
  }

  @Test
  void aHostedNriPluginSetsEnvAndCpuLimitOfAContainerdPod() {
    assertOnlyThePluginNamedAdjusts("inject", "NRI_INJECTED", "GO_NRI_INJECTED", "150000 100000");
  }

  @Test
  void aGoNriPluginSetsEnvAndCpuLimitOfAContainerdPod() {
    assertOnlyThePluginNamedAdjusts("goinject", "GO_NRI_INJECTED", "NRI_INJECTED", "50000 100000");
  }

  /** A pod naming {@code plugin} has that plugin's env var and CFS limit, and not the other plugin's env var. */
  private static void assertOnlyThePluginNamedAdjusts(String plugin, String env, String otherEnv, String cfsLimit) {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = podFor(plugin, "nri-" + plugin + "-");
    Started started = runOnContainerd(runtime, pod);
    String id = started.containerId();
    try {
      assertThat(exec(runtime, id, "echo $" + env)).isEqualTo("by-" + pod.getMetadata().getName());
      assertThat(exec(runtime, id, "echo \"[$" + otherEnv + "]\"")).as("a plugin leaves the pods it is not named by")
          .isEqualTo("[]");
      assertThat(exec(runtime, id, CFS_LIMIT)).isEqualTo(cfsLimit);
    } finally {
      remove(runtime, started);
    }
  }

  @Test
  void anUnsolicitedUpdateFromAHostedPluginReachesTheContainersCgroupAndAnEvictionStopsIt() {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    Started started = runOnContainerd(runtime, podFor("inject", "nri-update-"));
    String id = started.containerId();
    try {
      assertThat(exec(runtime, id, CFS_LIMIT)).isEqualTo("150000 100000");
      ContainerUpdate update = ContainerUpdate.newBuilder().setContainerId(id).setLinux(LinuxContainerUpdate.newBuilder()
          .setResources(LinuxResources.newBuilder().setCpu(LinuxCPU.newBuilder()
              .setQuota(OptionalInt64.newBuilder().setValue(250_000)).setPeriod(OptionalUInt64.newBuilder().setValue(100_000)))))
          .build();

      assertThat(plugin.updateContainers(List.of(update), List.of())).as("failed updates").isEmpty();
      assertThat(exec(runtime, id, CFS_LIMIT)).isEqualTo("250000 100000");

      // as containerd's NRI does, crigate stops an evicted container: the kubelet then sees it exited
      plugin.updateContainers(List.of(), List.of(ContainerEviction.newBuilder().setContainerId(id)
          .setReason("test pressure").build()));
      await("container " + id + " stopped").atMost(Duration.ofSeconds(30)).until(() -> state(runtime, id)
          == ContainerState.CONTAINER_EXITED);
      // the line follows the stop's answer, so it may land just after the container reads EXITED
      await("eviction logged").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(crigate.process().logTail())
          .contains("NRI plugin 10-inject asked to evict [" + id + " (test pressure)]")
          .contains("evicted container " + id + ": stopped for NRI plugin 10-inject (test pressure)"));
    } finally {
      remove(runtime, started);
    }
  }

  @Test
  void aPodResourceUpdateReachesTheHostedPluginsBeforeTheRuntime() throws IOException {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    Started started = runOnContainerd(runtime, podFor("inject", "nri-resize-"));
    try {
      podUpdates.clear();
      UpdatePodSandboxResourcesRequest resize = UpdatePodSandboxResourcesRequest.newBuilder()
          .setPodSandboxId(started.podId())
          .setResources(LinuxContainerResources.newBuilder().setCpuShares(2048)).build();

      // containerd 1.6 predates UpdatePodSandboxResources (CRI 1.33): the kubelet gets its answer, and
      // the plugins were told first, in index order (10-inject, then 20-goinject), as NRI does
      assertThatThrownBy(() -> runtime.updatePodSandboxResources(resize)).isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("UNIMPLEMENTED");
      assertThat(podUpdates).containsExactly(started.podId() + " shares=2048");
      assertThat(goOut.readLine()).isEqualTo("UPDATE-POD-SANDBOX " + started.podId() + " shares=2048");
    } finally {
      remove(runtime, started);
    }
  }

  private static ContainerState state(RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime, String id) {
    return runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build()).getStatus().getState();
  }

  /** cgroup v2 has cpu.max; v1 (this host) the CFS quota and period files. */
  private static final String CFS_LIMIT = "cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) "
      + "$(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)";

  private static PodSandboxConfig podFor(String plugin, String prefix) {
    return hostNetworkPod(prefix + System.nanoTime(), crigate.workDir().resolve("pods")).toBuilder()
        .putAnnotations(SELECTOR, plugin).build();
  }

  record Started(String podId, String containerId) {}

  /** A new pod on containerd with one started container. */
  private static Started runOnContainerd(RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime, PodSandboxConfig pod) {
    String podId = runtime.runPodSandbox(runPod(pod, "")).getPodSandboxId();
    crigate.cri().images().pullImage(pull(infra.baseImage(), pod, ""));
    String id = runtime.createContainer(create(podId,
        shellContainer("app", infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done"), pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    return new Started(podId, id);
  }

  private static void remove(RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime, Started started) {
    runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(started.podId()).build());
    runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(started.podId()).build());
  }

  @Test
  void theSamePluginSetsEnvAndCpusOfASlurmJob() throws Exception {
    // half a CPU of quota is 1 CPU for Slurm, but the cpuset lists 2: the job asks for 2, which on this
    // 2-CPU node are 0-1, so it pins itself to all of them
    SlurmJob job = runOnSlurm(Map.of(CPUSET, "0-1"));
    try {
      assertThat(job.env()).isEqualTo("by-" + job.pod().getMetadata().getName());
      assertThat(scontrol(job.jobId())).contains("NumCPUs=2");
      assertThat(job.cpusAllowed()).isEqualTo("0-1");
      assertThat(job.log()).contains("crigate: pinned to cpuset 0-1 (Slurm allocated 0-1)");
    } finally {
      job.remove();
    }
  }

  @Test
  void aSlurmJobRunsOnTheCpusetsCpuIdsWhenSlurmAllocatedThem() throws Exception {
    // 1.5 CPUs of quota: a 2-CPU job (0-1 here), inside which the cpuset names CPU 1 alone
    SlurmJob job = runOnSlurm(Map.of(CPUSET, "1", QUOTA, "150000"));
    try {
      assertThat(scontrol(job.jobId())).contains("NumCPUs=2");
      assertThat(job.cpusAllowed()).as(job.log()).isEqualTo("1");
      assertThat(job.log()).contains("crigate: pinned to cpuset 1 (Slurm allocated 0-1)");
    } finally {
      job.remove();
    }
  }

  @Test
  void aCpusetOutsideTheJobsCpusIsNotAppliedAndAnEvictionCancelsTheJob() throws Exception {
    // CPU 7 does not exist on this node: Slurm cannot have allocated it, so the job says so and runs unpinned
    SlurmJob job = runOnSlurm(Map.of(CPUSET, "7"));
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    try {
      assertThat(job.log()).contains("crigate: cpuset 7 not applied: CPU(s) 7 not among this job's CPUs");
      assertThat(job.cpusAllowed()).isEqualTo("0-1");

      plugin.updateContainers(List.of(), List.of(ContainerEviction.newBuilder().setContainerId(job.containerId())
          .setReason("node pressure").build()));

      await("evicted job's container exited").atMost(Duration.ofMinutes(1))
          .until(() -> state(runtime, job.containerId()) == ContainerState.CONTAINER_EXITED);
      // the line follows the stop's answer, so it may land just after the container reads EXITED
      await("eviction logged").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(crigate.process().logTail())
          .contains("evicted container " + job.containerId() + ": stopped for NRI plugin 10-inject (node pressure)"));
      await("job " + job.jobId() + " ended").atMost(Duration.ofMinutes(1))
          .until(() -> !scontrol(job.jobId()).contains("JobState=RUNNING"));
      assertThat(scontrol(job.jobId())).containsAnyOf("JobState=CANCELLED", "JobState=FAILED");
    } finally {
      job.remove();
    }
  }

  /** A started Slurm container of a pod naming the Java plugin, and what its job printed. */
  record SlurmJob(PodSandboxConfig pod, String podId, String containerId, String jobId, String env, String cpusAllowed,
      String log) {
    void remove() {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
      runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
      runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    }
  }

  private static SlurmJob runOnSlurm(Map<String, String> annotations) throws Exception {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = podFor("inject", "nri-slurm-").toBuilder().putAllAnnotations(annotations).build();
    String podId = runtime.runPodSandbox(runPod(pod, "slurm")).getPodSandboxId();
    // the batch script exports the env (srun steps would see crigate's), so the job prints it, and
    // the CPUs its command may run on
    String id = runtime.createContainer(create(podId, shellContainer("job", infra.baseImage(),
        "echo env=$NRI_INJECTED job=$SLURM_JOB_ID cpus=$(sed -n 's/^Cpus_allowed_list:\\s*//p' /proc/self/status); sleep 300"),
        pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    Path log = Path.of(pod.getLogDirectory(), "job.log");
    await("job output in " + log).atMost(Duration.ofMinutes(2))
        .until(() -> Files.exists(log) && Files.readString(log).contains("job="));
    Matcher printed = Pattern.compile("env=(\\S*) job=(\\d+) cpus=(\\S*)").matcher(Files.readString(log));
    assertThat(printed.find()).as(Files.readString(log)).isTrue();
    return new SlurmJob(pod, podId, id, printed.group(2), printed.group(1), printed.group(3), Files.readString(log));
  }

  private static String scontrol(String jobId) throws Exception {
    Process scontrol = new ProcessBuilder("scontrol", "show", "job", jobId).redirectErrorStream(true).start();
    String shown = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(scontrol.waitFor()).as(shown).isZero();
    return shown;
  }

  private static String exec(RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime, String id, String script) {
    ExecSyncResponse r = runtime.execSync(ExecSyncRequest.newBuilder().setContainerId(id)
        .addCmd("sh").addCmd("-c").addCmd(script).setTimeout(10).build());
    assertThat(r.getExitCode()).as(r.getStderr().toStringUtf8()).isZero();
    return r.getStdout().toStringUtf8().strip();
  }

  private static Path tempDir() {
    try {
      // short: a unix socket path holds 107 bytes
      return Files.createTempDirectory(Path.of("/tmp"), "nri-it-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
