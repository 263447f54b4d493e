package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #3, item 9: while slurmctld is down the backend answers Unavailable (never NotFound, never
 * a made-up exit), and once it is back the job's real outcome arrives.
 */
class SlurmctldOutageIT {

  private static final Path INFRA = Path.of("..", "scripts", "infra");

  @TempDir Path tmp;

  @Test
  void unreachableControllerIsUnavailableThenRecovers() throws Exception {
    try (SlurmBackend backend = SlurmCluster.backend(settings(SlurmCluster.Transport.LOCAL), tmp.resolve("state"))) {
      String[] ids = create(backend, pod("outage", tmp.resolve("logs"), Map.of()),
          container("main", List.of("/bin/sh", "-c", "sleep 8; echo after-outage"), Map.of()));
      start(backend, ids[1]);
      await().atMost(Duration.ofSeconds(60)).until(() -> status(backend, ids[1]).getMessage().contains(" RUNNING"));

      try {
        run("bash", "-c", ". " + INFRA.resolve("lib.sh") + " && infra_stop slurm-slurmctld");
        await().atMost(Duration.ofSeconds(90)).until(() ->
            catchThrowable(() -> status(backend, ids[1])) instanceof CrigateException.Unavailable);
        assertThat(backend.status(StatusRequest.getDefaultInstance()).getStatus().getConditions(0).getStatus()).isFalse();
        // the node's relist still sees the job, as last known: a failed ListContainers would make
        // the kubelet mark the whole node NotReady
        assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
            .singleElement().satisfies(c -> {
              assertThat(c.getId()).isEqualTo(ids[1]);
              assertThat(c.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
            });
      } finally {
        run("bash", INFRA.resolve("slurm-up.sh").toString());
      }

      await().atMost(Duration.ofSeconds(120)).ignoreExceptionsInstanceOf(CrigateException.Unavailable.class)
          .until(() -> status(backend, ids[1]).getState() == ContainerState.CONTAINER_EXITED);
      ContainerStatus done = status(backend, ids[1]);
      assertThat(done.getReason()).isEqualTo("Completed");
      assertThat(done.getExitCode()).isZero();
      assertThat(backend.status(StatusRequest.getDefaultInstance()).getStatus().getConditions(0).getStatus()).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() ->
          Files.readString(tmp.resolve("logs/main/0.log")).contains("stdout F after-outage"));
    }
  }

  private static void run(String... argv) throws Exception {
    Process process = new ProcessBuilder(argv).inheritIO().start();
    assertThat(process.waitFor()).as(String.join(" ", argv)).isZero();
  }
}
