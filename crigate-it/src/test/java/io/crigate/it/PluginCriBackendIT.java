package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ContainerFilter;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.PodSandboxFilter;
import io.crigate.interlink.api.PluginClient;
import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogOptions;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.RetrievedContainer;
import io.crigate.interlink.wire.RetrievedPodData;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code crigate interlink-plugin} over a {@code type: cri} backend (the role of interLink's Docker
 * plugin): a real plugin process on a unix socket in front of the shared containerd A, spoken to
 * as interLink's API server does. Pods run as real containers from the local registry's image.
 */
class PluginCriBackendIT {

  private static final Infra infra = Infra.fromEnvironment();
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  private static Path workDir;
  private static Process process;
  private static PluginClient plugin;
  private static CriConnection containerd;
  private final List<Pod> created = new ArrayList<>();

  @BeforeAll
  static void startPlugin() throws IOException {
    workDir = Files.createTempDirectory("crigate-plugin-cri-it");
    Path config = Files.writeString(workDir.resolve("crigate.yaml"), """
        backends:
          - name: containerd
            type: cri
            handlers: [default]
            endpoint: %s
        """.formatted(infra.containerdA()));
    Path socket = workDir.resolve("plugin.sock");
    process = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), "interlink-plugin",
        "--config", config.toString(), "--state-dir", workDir.resolve("state").toString(),
        "--listen", "unix://" + socket)
        .redirectErrorStream(true).redirectOutput(workDir.resolve("plugin.log").toFile()).start();
    plugin = new PluginClient("unix://" + socket, null);
    containerd = CriConnection.open(infra.containerdA());
    await("the plugin serving on " + socket).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .failFast("the plugin exited; its log:\n" + logOf(), () -> !process.isAlive())
        .ignoreExceptions().until(() -> plugin.ping() != null);
  }

  @AfterEach
  void deletePods() {
    created.forEach(plugin::delete);
  }

  @AfterAll
  static void stopPlugin() throws InterruptedException {
    if (plugin != null) {
      plugin.close();
    }
    if (containerd != null) {
      containerd.close();
    }
    if (process != null) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    try (var files = Files.walk(workDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void initContainerThenContainerWithAConfigMapVolumeSucceedsAndItsLogsComeBack() {
    ConfigMap greeting = new ConfigMapBuilder().withNewMetadata().withName("greeting").endMetadata()
        .addToData("text", "hello-from-a-configmap").build();
    Pod pod = new PodBuilder(pod("cri-ok",
        "cat /shared/init-marker; cat /config/text; echo; echo main-done"))
        .editSpec()
        .addNewInitContainer().withName("init").withImage(infra.baseImage())
        .withCommand("/bin/sh", "-c", "echo init-ran | tee /shared/init-marker").addNewVolumeMount().withName("shared")
        .withMountPath("/shared").endVolumeMount().endInitContainer()
        .editFirstContainer()
        .addNewVolumeMount().withName("shared").withMountPath("/shared").endVolumeMount()
        .addNewVolumeMount().withName("config").withMountPath("/config").withReadOnly(true).endVolumeMount()
        .endContainer()
        .addNewVolume().withName("shared").withNewEmptyDir().endEmptyDir().endVolume()
        .addNewVolume().withName("config").withNewConfigMap().withName("greeting").endConfigMap().endVolume()
        .endSpec().build();

    create(pod, List.of(RetrievedContainer.named("init"),
        new RetrievedContainer("main", List.of(greeting), List.of(), List.of(), null)));

    PodStatusReport report = awaitEnded(pod);
    ContainerStateTerminated init = terminated(report.initContainers().getFirst());
    ContainerStateTerminated main = terminated(report.containers().getFirst());
    assertThat(init.getExitCode()).isZero();
    assertThat(main.getExitCode()).isZero();
    assertThat(main.getReason()).isEqualTo("Completed");
    assertThat(init.getFinishedAt()).as("the init container ended before the container started")
        .isLessThanOrEqualTo(main.getStartedAt());
    // the container read what the init container wrote, and the ConfigMap as a file
    assertThat(logs(pod, "main", LogOptions.NONE)).contains("init-ran\nhello-from-a-configmap\nmain-done\n");
    assertThat(logs(pod, "init", LogOptions.NONE)).isEqualTo("init-ran\n");
  }

  @Test
  void aContainerThatExitsThreeFailsWithItsExitCode() {
    Pod pod = pod("cri-exit3", "echo about-to-fail; exit 3");

    create(pod, List.of(RetrievedContainer.named("main")));

    ContainerStateTerminated main = terminated(awaitEnded(pod).containers().getFirst());
    assertThat(main.getExitCode()).isEqualTo(3);
    assertThat(main.getReason()).isEqualTo("Error");
    assertThat(logs(pod, "main", LogOptions.NONE)).isEqualTo("about-to-fail\n");
  }

  @Test
  void followedLogsStreamUntilTheContainerEnds() throws Exception {
    Pod pod = pod("cri-follow", "for i in 1 2 3; do echo tick-$i; sleep 1; done");
    create(pod, List.of(RetrievedContainer.named("main")));
    await().atMost(RUN_TIMEOUT).until(() -> state(pod).getRunning() != null || state(pod).getTerminated() != null);

    CompletableFuture<String> followed = CompletableFuture.supplyAsync(() ->
        logs(pod, "main", new LogOptions(0, 0, false, true, false, 0, null)));

    assertThat(followed.get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("tick-1\ntick-2\ntick-3\n");
    assertThat(state(pod).getTerminated()).as("the followed log ended with the container").isNotNull();
  }

  @Test
  void deleteStopsTheContainersAndLeavesNothingInContainerd() {
    Pod pod = pod("cri-delete", "trap 'exit 0' TERM; echo started; while :; do sleep 1; done");
    create(pod, List.of(RetrievedContainer.named("main")));
    await().atMost(RUN_TIMEOUT).until(() -> state(pod).getRunning() != null);
    assertThat(sandboxesOf(pod)).hasSize(1);

    String answer = plugin.delete(pod);
    created.remove(pod);

    assertThat(answer).contains("deleted");
    assertThat(sandboxesOf(pod)).isEmpty();
    assertThat(containerd.runtime().listContainers(ListContainersRequest.newBuilder().setFilter(ContainerFilter.newBuilder()
        .putLabelSelector("io.kubernetes.pod.uid", pod.getMetadata().getUid())).build()).getContainersList()).isEmpty();
    assertThat(plugin.status(List.of(pod)).getFirst().containers().getFirst().getState().getWaiting().getReason())
        .isEqualTo("PodUnknown");
  }

  private Pod pod(String prefix, String script) {
    String uid = UUID.randomUUID().toString();
    return new PodBuilder().withNewMetadata().withName(prefix + "-" + uid.substring(0, 8)).withNamespace("crigate-it")
        .withUid(uid).endMetadata()
        .withNewSpec().withTerminationGracePeriodSeconds(5L).addNewContainer().withName("main").withImage(infra.baseImage())
        .withCommand("/bin/sh", "-c", script).endContainer().endSpec().build();
  }

  private void create(Pod pod, List<RetrievedContainer> containers) {
    CreateStruct answer = plugin.create(new RetrievedPodData(pod, containers));
    created.add(pod);
    assertThat(answer.podUid()).isEqualTo(pod.getMetadata().getUid());
    assertThat(answer.podJid()).as("the sandbox id").isNotBlank();
  }

  private PodStatusReport awaitEnded(Pod pod) {
    await("pod " + pod.getMetadata().getName() + " ended").atMost(RUN_TIMEOUT).pollInterval(Duration.ofMillis(500))
        .until(() -> plugin.status(List.of(pod)).getFirst().containers().stream()
            .allMatch(c -> c.getState().getTerminated() != null));
    return plugin.status(List.of(pod)).getFirst();
  }

  private ContainerState state(Pod pod) {
    return plugin.status(List.of(pod)).getFirst().containers().getFirst().getState();
  }

  private static ContainerStateTerminated terminated(ContainerStatus status) {
    assertThat(status.getState().getTerminated()).as("container %s terminated", status.getName()).isNotNull();
    return status.getState().getTerminated();
  }

  private String logs(Pod pod, String container, LogOptions opts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      plugin.logs(new LogRequest(pod.getMetadata().getNamespace(), pod.getMetadata().getUid(), pod.getMetadata().getName(),
          container, opts), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private List<?> sandboxesOf(Pod pod) {
    return containerd.runtime().listPodSandbox(ListPodSandboxRequest.newBuilder().setFilter(PodSandboxFilter.newBuilder()
        .putLabelSelector("io.kubernetes.pod.uid", pod.getMetadata().getUid())).build()).getItemsList();
  }

  private static String logOf() {
    try {
      return Files.readString(workDir.resolve("plugin.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
