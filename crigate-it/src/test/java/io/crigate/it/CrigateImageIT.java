package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * crigate's own OCI image, which the build pushes with Jib (crigate-cli's {@code oci-image} profile,
 * switched on by scripts/test.sh) onto the JRE base that scripts/infra/images.sh assembles: containerd,
 * through crigate, pulls it and runs {@code crigate --help} from it.
 */
class CrigateImageIT {

  static final Infra infra = Infra.fromEnvironment();
  static final String image = requiredImage();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA());

  @Test
  void containerdRunsCrigateHelpFromTheImageTheBuildPushed() throws Exception {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    PodSandboxConfig pod = hostNetworkPod("crigate-image", crigate.workDir().resolve("pods"));
    String podId = runtime.runPodSandbox(runPod(pod, "")).getPodSandboxId();
    crigate.cri().images().pullImage(pull(image, pod, ""));

    // No command: the image's own entrypoint (java ... io.crigate.cli.Main) gets the argument.
    ContainerConfig help = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("help"))
        .setImage(ImageSpec.newBuilder().setImage(image))
        .addArgs("--help")
        .setLogPath("help.log")
        .build();
    String containerId = runtime.createContainer(create(podId, help, pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());

    await("crigate --help in the container to exit").atMost(Duration.ofSeconds(60))
        .until(() -> crigate.cri().containerState(containerId) == ContainerState.CONTAINER_EXITED);
    ContainerStatus status = runtime.containerStatus(
        ContainerStatusRequest.newBuilder().setContainerId(containerId).build()).getStatus();
    String log = Files.readString(Path.of(pod.getLogDirectory(), "help.log"));
    assertThat(status.getExitCode()).as("exit code; log:%n%s", log).isZero();
    assertThat(log).contains("Usage: crigate").contains("serve");

    runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build());
    runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
  }

  private static String requiredImage() {
    String value = System.getenv("CRIGATE_IMAGE_CRIGATE");
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("CRIGATE_IMAGE_CRIGATE is not set: scripts/infra/up.sh writes it to the env "
          + "file, and scripts/test.sh builds and pushes the image with -Dcrigate.image=$CRIGATE_IMAGE_CRIGATE");
    }
    return value;
  }
}
