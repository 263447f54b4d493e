package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A pod and a container through every lifecycle step, via crigate, on containerd A. */
class LifecycleIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA());

  @Test
  void runsAPodAndAContainerFromPullToRemoval() throws Exception {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = hostNetworkPod("lifecycle", crigate.workDir().resolve("pods"));

    String podId = runtime.runPodSandbox(runPod(pod, "")).getPodSandboxId();
    assertThat(crigate.cri().podState(podId)).isEqualTo(PodSandboxState.SANDBOX_READY);

    String imageRef = crigate.cri().images().pullImage(pull(infra.baseImage(), pod, "")).getImageRef();
    assertThat(imageRef).startsWith("sha256:");

    ContainerConfig app = shellContainer("app", infra.baseImage(),
        "echo lifecycle-output; trap 'exit 0' TERM; while :; do sleep 1; done");
    String containerId = runtime.createContainer(create(podId, app, pod)).getContainerId();
    assertThat(crigate.cri().containerState(containerId)).isEqualTo(ContainerState.CONTAINER_CREATED);

    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());
    assertThat(crigate.cri().containerState(containerId)).isEqualTo(ContainerState.CONTAINER_RUNNING);

    ExecSyncResponse exec = runtime.execSync(ExecSyncRequest.newBuilder().setContainerId(containerId)
        .addCmd("sh").addCmd("-c").addCmd("echo exec-$((6 * 7))").setTimeout(10).build());
    // $((6 * 7)) proves a shell inside the container ran the command.
    assertThat(exec.getExitCode()).isZero();
    assertThat(exec.getStdout().toStringUtf8()).isEqualTo("exec-42\n");

    Path logFile = Path.of(pod.getLogDirectory(), "app.log");
    await("container output in " + logFile).atMost(Duration.ofSeconds(30))
        .until(() -> Files.exists(logFile) && Files.readString(logFile).contains("lifecycle-output"));

    runtime.stopContainer(StopContainerRequest.newBuilder().setContainerId(containerId).setTimeout(10).build());
    ContainerStatus stopped = runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build()).getStatus();
    assertThat(stopped.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(stopped.getExitCode()).as("the trap's exit 0 on SIGTERM").isZero();

    runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build());
    assertThatThrownBy(() -> crigate.cri().containerState(containerId))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));

    runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    assertThat(crigate.cri().podState(podId)).isEqualTo(PodSandboxState.SANDBOX_NOTREADY);

    runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    assertThat(runtime.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList())
        .extracting(PodSandbox::getId)
        .doesNotContain(podId);
  }
}
