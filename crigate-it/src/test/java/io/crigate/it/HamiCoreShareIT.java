package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Koordinator's HAMi-core GPU share on real containerd A, in each hook mode: a pod labelled
 * {@code koordinator.sh/gpu-isolation-provider: HAMi-core} with half a GPU gets HAMi-core's library
 * preloaded and bound in at its node path, and {@code /tmp/vgpulock} bound in, as the koordlet's GPU
 * hook gives it. There is no GPU here: the library is a stand-in file at a temporary
 * {@code hamiCoreLibraryPath}, and the test reads, inside the container, that it is mounted (with the
 * stand-in's bytes), that the lock directory is mounted, and the env. Proxy mode is {@code crigate
 * serve}; NRI mode is {@code crigate serve} hosting NRI for containerd 1.6 with {@code crigate
 * nri-plugin} running the hooks on its socket (the plugin's mounts cross NRI both ways); standalone
 * mode cannot add mounts to a running container and says so.
 */
class HamiCoreShareIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Path DIR = ShortTempDir.create("hami-it-");
  static final Path NRI_SOCKET = DIR.resolve("nri.sock");
  /** The stand-in for HAMi-core's libvgpu.so, a file as koordlet's setting names one. */
  static final Path LIBRARY = DIR.resolve("vgpu/libvgpu.so");
  static final String STAND_IN = "HAMi-core stand-in for " + DIR + "\n";
  static final Path LOCK_DIR = Path.of("/tmp/vgpulock");

  static final String HAMI_LABEL = "koordinator.sh/gpu-isolation-provider";
  static final String DEVICES = "scheduling.koordinator.sh/device-allocated";

  enum Mode {
    PROXY, NRI, STANDALONE;

    String config() {
      return """
          hooks:
            mode: %s
            GPUEnvInject: {hamiCoreLibraryPath: %s}
          """.formatted(name().toLowerCase(Locale.ROOT), LIBRARY);
    }
  }

  @RegisterExtension
  static final CrigateExtension proxy = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig(Mode.PROXY.config());

  @RegisterExtension
  static final CrigateExtension nriHost = CrigateExtension.nriHost(NRI_SOCKET, Mode.NRI.config(),
      "default:" + infra.containerdA());

  static CrigateCommand nriPlugin;
  static CriConnection direct;
  static boolean lockDirWasThere;

  @BeforeAll
  static void writeTheStandInAndStartTheNriPlugin() throws IOException {
    Files.createDirectories(LIBRARY.getParent());
    Files.writeString(LIBRARY, STAND_IN);
    lockDirWasThere = Files.isDirectory(LOCK_DIR);
    direct = CriConnection.open(infra.containerdA());
    nriPlugin = CrigateCommand.nriPlugin(DIR, NRI_SOCKET, Mode.NRI.config(), nriHost);
  }

  @AfterAll
  static void stopAndCleanUp() throws IOException {
    if (direct != null) {
      direct.close();
    }
    if (nriPlugin != null) {
      nriPlugin.stop();
    }
    // containerd made the lock directory if no one had: it goes if nothing was left in it
    if (!lockDirWasThere) {
      try {
        Files.deleteIfExists(LOCK_DIR);
      } catch (IOException e) {
        System.err.println(LOCK_DIR + " left: " + e);
      }
    }
    ShortTempDir.delete(DIR);
  }

  @Test
  void proxyModeCreatesAShareWithTheLibraryPreloadedAndBothPathsMountedAndAWholeGpuWithout() throws Exception {
    onPod(proxy.cri(), "proxy-share", "50", HamiCoreShareIT::assertHamiCoreInside);
    onPod(proxy.cri(), "proxy-whole", "100", whole -> {
      assertThat(mountPoints(whole)).doesNotContain(LIBRARY.toString(), LOCK_DIR.toString());
      assertThat(env(whole)).contains("NVIDIA_VISIBLE_DEVICES=0").noneMatch(e -> e.startsWith("LD_PRELOAD="));
    });
  }

  @Test
  void nriModeCreatesTheShareTheSameThroughCrigatesNriHostAndItsNriPlugin() throws Exception {
    onPod(nriHost.cri(), "nri-share", "50", HamiCoreShareIT::assertHamiCoreInside);
  }

  @Test
  void standaloneModeSaysOnceWhichMountsItCouldNotAddToTheRunningContainer() throws Exception {
    Path config = Files.writeString(DIR.resolve("standalone.yaml"), Mode.STANDALONE.config());
    CrigateCommand reconciler = CrigateCommand.start(DIR.resolve("hooks-reconciler.log"), "hooks-reconciler",
        "--config", config.toString(), "--remote-runtime-endpoints", "default:" + infra.containerdA());
    try {
      await("hooks-reconciler's first pass").atMost(Duration.ofSeconds(120))
          .failFast("hooks-reconciler exited", () -> !reconciler.isAlive())
          .until(() -> reconciler.output().contains("standalone hooks: first pass done"));
      onPod(direct, "standalone-share", "50", share -> {
        String line = "standalone hooks: container %s (app) runs without mounts [%s:%s, %s:%s]"
            .formatted(share.containerId(), LIBRARY, LIBRARY, LOCK_DIR, LOCK_DIR);
        await("the reconciler's line on the share; its log:\n" + reconciler.tail()).atMost(Duration.ofSeconds(30))
            .until(() -> reconciler.output().contains(line));
        // a full pass later (resync) it is not said again, and the container runs as it was created
        Thread.sleep(Duration.ofSeconds(11));
        assertThat(reconciler.output().split(java.util.regex.Pattern.quote(line), -1)).hasSize(2);
        assertThat(mountPoints(share)).doesNotContain(LIBRARY.toString(), LOCK_DIR.toString());
      });
    } finally {
      reconciler.stop();
    }
  }

  /** The share's container, seen from containerd A itself and from inside. */
  private static void assertHamiCoreInside(Running share) {
    assertThat(direct.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(share.containerId())
        .build()).getStatus().getMountsList())
        .extracting(Mount::getContainerPath, Mount::getHostPath, Mount::getReadonly)
        .contains(org.assertj.core.groups.Tuple.tuple(LIBRARY.toString(), LIBRARY.toString(), false),
            org.assertj.core.groups.Tuple.tuple(LOCK_DIR.toString(), LOCK_DIR.toString(), false));
    assertThat(mountPoints(share)).contains(LIBRARY.toString(), LOCK_DIR.toString());
    assertThat(exec(share, "cat", LIBRARY.toString())).isEqualTo(STAND_IN);
    // 8Gi of the GPU's memory and half its SMs, as HAMi-core reads them, with its library preloaded
    assertThat(env(share)).contains("LD_PRELOAD=" + LIBRARY, "NVIDIA_VISIBLE_DEVICES=0",
        "CUDA_DEVICE_MEMORY_LIMIT=8589934592", "CUDA_DEVICE_SM_LIMIT=50");
  }

  record Running(CriConnection cri, String podId, String containerId) {
    void remove() {
      cri.removePod(podId);
    }
  }

  interface Check {
    void on(Running running) throws Exception;
  }

  /** Runs {@code check} on a HAMi-core pod {@link #start} started, then removes the pod. */
  private static void onPod(CriConnection cri, String name, String ratio, Check check) throws Exception {
    Running running = start(cri, name, ratio);
    try {
      check.on(running);
    } finally {
      running.remove();
    }
  }

  /** A HAMi-core pod on GPU 0 with {@code ratio} % of its memory (8Gi of it) and half its SMs. */
  private static Running start(CriConnection cri, String name, String ratio) {
    PodSandboxConfig pod = hostNetworkPod("hami-" + name + "-" + System.nanoTime() % 100_000, DIR.resolve("pods"))
        .toBuilder().putLabels(HAMI_LABEL, "HAMi-core").putAnnotations(DEVICES, """
            {"gpu":[{"minor":0,"resources":{"koordinator.sh/gpu-memory-ratio":%s,\
            "koordinator.sh/gpu-memory":"8Gi","koordinator.sh/gpu-core":50}}]}""".formatted(ratio)).build();
    String podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
    try {
      cri.images().pullImage(pull(infra.baseImage(), pod, ""));
      String id = cri.runtime().createContainer(create(podId,
          shellContainer("app", infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done"), pod)).getContainerId();
      cri.runtime().startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
      return new Running(cri, podId, id);
    } catch (RuntimeException e) {
      cri.removePod(podId);
      throw e;
    }
  }

  /** The mount points the container's own processes see. */
  private static List<String> mountPoints(Running running) {
    return exec(running, "cat", "/proc/self/mounts").lines().map(line -> line.split(" ")[1]).toList();
  }

  /** The environment a process in the container gets. */
  private static List<String> env(Running running) {
    return Arrays.asList(exec(running, "env").split("\n"));
  }

  /** Runs {@code cmd} in the container through containerd A; its standard output. */
  private static String exec(Running running, String... cmd) {
    ExecSyncResponse exec = direct.runtime().execSync(ExecSyncRequest.newBuilder().setContainerId(running.containerId())
        .addAllCmd(List.of(cmd)).setTimeout(10).build());
    assertThat(exec.getExitCode()).as("%s: %s", List.of(cmd), exec.getStderr().toStringUtf8()).isZero();
    return exec.getStdout().toStringUtf8();
  }

}
