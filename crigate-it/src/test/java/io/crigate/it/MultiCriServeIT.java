package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * multi-cri's systemd command line (its README, "Kubelet configuration") with its documented
 * {@code --stream-addr}/{@code --stream-port} flags and its Slurm adapter's environment, given to
 * {@code bin/crigate serve} in front of the real containerd and the real Slurm. Only the socket, the
 * state directory, $HOME and the port are this test's. Pods of RuntimeClass {@code multicri} are
 * Slurm jobs, as multi-cri ran them; pods without one go to containerd.
 */
class MultiCriServeIT {

  static final Infra infra = Infra.fromEnvironment();
  /** In this helper's port range; multi-cri's README gives no default. */
  static final int STREAM_PORT = 27017;
  static final String MOUNT_PATH = "multicri-it";
  /** The RuntimeClass handler multi-cri's README registers, which crigate's translated slurm backend serves. */
  static final String HANDLER = "multicri";

  static Path work;
  static CrigateProcess crigate;
  private final List<String> pods = new ArrayList<>();

  @BeforeAll
  static void serve() throws Exception {
    work = Files.createTempDirectory("crigate-multicri-");
    Path home = Files.createDirectories(work.resolve("home"));
    // Environment=CRI_SLURM_BUILD_IN_CLUSTER=true, then multi-cri -v 3 --socket-path … --remote-runtime-endpoints …
    crigate = CrigateProcess.serve(work, Map.of("CRI_SLURM_BUILD_IN_CLUSTER", "true", "CRI_SLURM_MOUNT_PATH", MOUNT_PATH,
            "HOME", home.toString()),
        List.of("-v", "3", "--socket-path", work.resolve("crigate.sock").toString(), "--root-dir", work.resolve("state").toString(),
            "--remote-runtime-endpoints", "default:" + infra.containerdA(),
            "--stream-addr", "127.0.0.1", "--stream-port", Integer.toString(STREAM_PORT)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (crigate != null) {
      crigate.close();
    }
    try (var paths = Files.walk(work)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @AfterEach
  void removePods() {
    pods.forEach(id -> crigate.cri().removePod(id));
  }

  private record Started(String podId, String containerId, PodSandboxConfig pod) {}

  private Started start(String handler, String name, ContainerConfig container) {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = hostNetworkPod(name, work.resolve("pods"));
    String podId = runtime.runPodSandbox(runPod(pod, handler)).getPodSandboxId();
    pods.add(podId);
    String id = runtime.createContainer(create(podId, container, pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    return new Started(podId, id, pod);
  }

  private static ContainerStatus status(String containerId) {
    return crigate.cri().runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build())
        .getStatus();
  }

  private static String execUrl(String containerId, String... command) {
    return crigate.cri().runtime().exec(ExecRequest.newBuilder().setContainerId(containerId).addAllCmd(List.of(command))
        .setStdout(true).setStderr(true).build()).getUrl();
  }

  @Test
  void execAndAttachUrlsOfASlurmPodNameTheStreamAddressAndPortAndExecRunsThroughThem() throws Exception {
    // the README's job image, its command made a long-running one
    Started job = start(HANDLER, "job-slurm",
        shellContainer("job-slurm-container", "multicri/docker.perl:latest", "sleep 600"));
    await("slurm job running").atMost(Duration.ofSeconds(90)).until(() -> status(job.containerId()).getMessage().contains("RUNNING"));
    String streamServer = "http://127.0.0.1:" + STREAM_PORT + "/";

    String exec = execUrl(job.containerId(), "sh", "-c", "echo exec-through-$((40 + 2))");
    String attach = crigate.cri().runtime().attach(AttachRequest.newBuilder().setContainerId(job.containerId())
        .setStdout(true).setStderr(true).build()).getUrl();

    assertThat(exec).startsWith(streamServer + "exec/");
    assertThat(attach).startsWith(streamServer + "attach/");
    GoExecClient.Result result = GoExecClient.build(Path.of("target/go-client")).run(exec, "spdy", "-no-stdin");
    assertThat(result.clientError()).isEmpty();
    assertThat(result.stdout()).isEqualTo("exec-through-42\n");
    assertThat(result.exitCode()).isZero();
    // multi-cri's adapter had no port-forward; crigate's is on the same stream address (StreamingIT runs it)
    assertThat(crigate.cri().runtime().portForward(PortForwardRequest.newBuilder().setPodSandboxId(job.podId())
        .addPort(8080).build()).getUrl()).startsWith(streamServer + "portforward/");
  }

  /**
   * As in multi-cri, which handed the remote runtime's own answer back for its pods, a containerd
   * pod's URLs are containerd's streaming server's, not the stream address: the bytes never pass
   * through crigate.
   */
  @Test
  void aContainerdPodsExecUrlIsContainerdsOwnAndExecRunsThroughIt() throws Exception {
    crigate.cri().images().pullImage(pull(infra.baseImage(), hostNetworkPod("pull", work.resolve("pods")), ""));
    Started shell = start("", "containerd-shell", shellContainer("shell", infra.baseImage(), "sleep 600"));

    String exec = execUrl(shell.containerId(), "sh", "-c", "echo exec-in-containerd");
    String portForward = crigate.cri().runtime().portForward(PortForwardRequest.newBuilder()
        .setPodSandboxId(shell.podId()).addPort(8080).build()).getUrl();

    assertThat(exec).doesNotContain(":" + STREAM_PORT + "/").contains("/exec/");
    assertThat(portForward).doesNotContain(":" + STREAM_PORT + "/").contains("/portforward/");
    GoExecClient.Result result = GoExecClient.build(Path.of("target/go-client")).run(exec, "spdy", "-no-stdin");
    assertThat(result.clientError()).isEmpty();
    assertThat(result.stdout()).isEqualTo("exec-in-containerd\n");
  }

  /**
   * The README's "Slurm adapter" configuration: CRI_SLURM_MOUNT_PATH "is the working directory in
   * the Slurm cluster … relative to the $HOME directory"; each job runs in its pod's and its own
   * directory there, as multi-cri's jobs did.
   */
  @Test
  void criSlurmMountPathUnderHomeIsWhereTheJobRuns() throws Exception {
    Started job = start(HANDLER, "job-perl-slurm",
        shellContainer("job-slurm-container", "multicri/docker.perl:latest", "pwd; ls /"));
    await("slurm job done").atMost(Duration.ofSeconds(90)).until(() -> status(job.containerId()).getState()
        == ContainerState.CONTAINER_EXITED);
    assertThat(status(job.containerId()).getExitCode()).isZero();

    Path expected = work.resolve("home").resolve(MOUNT_PATH).resolve(job.podId()).resolve(job.containerId());
    Path log = Path.of(job.pod().getLogDirectory()).resolve("job-slurm-container.log");
    await("job output in the pod log").atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log)
        && Files.readString(log).contains(" stdout F bin"));
    assertThat(Files.readAllLines(log)).anyMatch(line -> line.endsWith(" stdout F " + expected));
    assertThat(expected).isDirectory();
  }

  @Test
  void glogVerbosityThreeTurnsOnCrigatesDebugLines() throws Exception {
    assertThat(Files.readAllLines(crigate.log())).anyMatch(line -> line.matches("\\S+ DEBUG +\\[.*"));
  }
}
