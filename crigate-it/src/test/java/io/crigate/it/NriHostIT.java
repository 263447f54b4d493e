package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
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
  static NriPlugin plugin;
  static Process goPlugin;

  /**
   * A third-party style NRI plugin: an env var and 1.5 CPUs for every container of the pods naming it;
   * a pod that also names a cpuset ({@value #CPUSET}) gets half a CPU of quota and that cpuset.
   */
  static final class InjectPlugin implements NriHandler {
    @Override
    public Set<Event> events() {
      return Set.of(Event.CREATE_CONTAINER);
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
        cpu.setQuota(OptionalInt64.newBuilder().setValue(50_000)).setCpus(cpuset);
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
    assertThat(new BufferedReader(new InputStreamReader(goPlugin.getInputStream(), StandardCharsets.UTF_8)).readLine())
        .isEqualTo("REGISTERED");
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
  void anUnsolicitedUpdateFromAHostedPluginReachesTheContainersCgroupAndAnEvictionIsOnlyLogged() {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    Started started = runOnContainerd(runtime, podFor("inject", "nri-update-"));
    String id = started.containerId();
    try {
      assertThat(exec(runtime, id, CFS_LIMIT)).isEqualTo("150000 100000");
      ContainerUpdate update = ContainerUpdate.newBuilder().setContainerId(id).setLinux(LinuxContainerUpdate.newBuilder()
          .setResources(LinuxResources.newBuilder().setCpu(LinuxCPU.newBuilder()
              .setQuota(OptionalInt64.newBuilder().setValue(250_000)).setPeriod(OptionalUInt64.newBuilder().setValue(100_000)))))
          .build();
      ContainerEviction eviction = ContainerEviction.newBuilder().setContainerId(id).setReason("test pressure").build();

      assertThat(plugin.updateContainers(List.of(update), List.of(eviction))).as("failed updates").isEmpty();

      assertThat(exec(runtime, id, CFS_LIMIT)).isEqualTo("250000 100000");
      // crigate is not the kubelet: the eviction is logged, the container keeps running
      assertThat(crigate.process().logTail()).contains("NRI plugin 10-inject asked to evict [" + id + " (test pressure)]");
      assertThat(runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build()).getStatus().getState())
          .isEqualTo(ContainerState.CONTAINER_RUNNING);
    } finally {
      remove(runtime, started);
    }
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
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = podFor("inject", "nri-slurm-").toBuilder().putAnnotations(CPUSET, "0-1").build();
    String podId = runtime.runPodSandbox(runPod(pod, "slurm")).getPodSandboxId();
    try {
      // the batch script exports the env (srun steps would see crigate's), so the job prints it
      String id = runtime.createContainer(create(podId, shellContainer("job", infra.baseImage(),
          "echo env=$NRI_INJECTED job=$SLURM_JOB_ID; sleep 300"), pod)).getContainerId();
      runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
      Path log = Path.of(pod.getLogDirectory(), "job.log");
      await("job output in " + log).atMost(Duration.ofMinutes(2))
          .until(() -> Files.exists(log) && Files.readString(log).contains("job="));
      Matcher printed = Pattern.compile("env=(\\S*) job=(\\d+)").matcher(Files.readString(log));
      assertThat(printed.find()).as(Files.readString(log)).isTrue();
      assertThat(printed.group(1)).isEqualTo("by-" + pod.getMetadata().getName());
      // half a CPU of quota is 1 CPU for Slurm, but the cpuset lists 2: the job asks for 2
      Process scontrol = new ProcessBuilder("scontrol", "show", "job", printed.group(2)).redirectErrorStream(true).start();
      String shown = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(scontrol.waitFor()).as(shown).isZero();
      assertThat(shown).contains("NumCPUs=2");
    } finally {
      runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
      runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    }
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
