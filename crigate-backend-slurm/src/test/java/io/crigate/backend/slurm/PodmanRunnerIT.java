package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The podman image runner for real: a Slurm job runs the container image from the local registry,
 * ExecSync runs inside that container, and a stop leaves no podman container behind. The image's
 * /a.txt exists only inside the image, so output that contains it proves where a command ran.
 */
class PodmanRunnerIT {

  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path tmp;
  private SlurmBackend backend;

  @AfterEach
  void close() {
    if (backend != null) {
      backend.close();
    }
  }

  @Test
  void jobsAndExecSyncRunInsideTheImageAndAStopLeavesNoContainer() throws Exception {
    ObjectNode settings = settings(Transport.LOCAL).put("runner", "podman");
    backend = SlurmCluster.backend(settings, tmp.resolve("state"));
    String image = env("CRIGATE_IMAGE_A");
    backend.pullImage(PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
    assertThat(backend.listImages(ListImagesRequest.getDefaultInstance()).getImagesList())
        .anySatisfy(listed -> assertThat(listed.getRepoTagsList()).contains(image));
    assertThat(run("podman", "image", "exists", image)).isZero();

    ContainerConfig config = container("main", List.of("/bin/sh", "-c", "cat /a.txt; exec sleep 300"), Map.of())
        .toBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build();
    String[] ids = create(backend, pod("podman", tmp.resolve("logs"), Map.of()), config);
    start(backend, ids[1]);
    Path log = tmp.resolve("logs/main/0.log");
    await().atMost(JOB_TIMEOUT).until(() -> Files.exists(log) && Files.readString(log).contains("stdout F image a"));
    String name = SlurmClient.NAME_PREFIX + ids[1];
    await().atMost(JOB_TIMEOUT).until(() -> run("podman", "container", "exists", name) == 0);

    ExecSyncResponse exec = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1])
        .addAllCmd(List.of("/bin/cat", "/a.txt")).build());
    assertThat(exec.getExitCode()).isZero();
    assertThat(exec.getStdout().toStringUtf8()).isEqualTo("image a\n");
    assertThat(Path.of("/a.txt")).doesNotExist();

    backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(ids[1]).setTimeout(5).build());
    assertThat(status(backend, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    await().atMost(Duration.ofSeconds(30)).until(() -> run("podman", "container", "exists", name) != 0);
    backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
  }

  private static int run(String... argv) throws Exception {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = process.waitFor();
    if (code > 1) {
      throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
    }
    return code;
  }
}
