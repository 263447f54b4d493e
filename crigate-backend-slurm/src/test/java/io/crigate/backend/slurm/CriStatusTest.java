package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How Slurm's view of a job reaches the kubelet, and which error kind it gets when Slurm cannot tell. */
class CriStatusTest {

  @TempDir Path tmp;
  private FakeSlurmBackends fake;
  private SlurmBackend backend;
  private String id;
  private long job;

  @BeforeEach
  void startOne() {
    fake = new FakeSlurmBackends(tmp);
    backend = fake.open();
    id = fake.create(backend, "status", List.of("true"))[1];
    start(backend, id);
    job = fake.slurm.jobIds().getFirst();
  }

  @AfterEach
  void close() {
    fake.close();
  }

  @Test
  void aSubmittedJobNotYetPolledIsRunningAndSaysSo() {
    ContainerStatus submitted = status(backend, id);
    assertThat(submitted.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThat(submitted.getMessage()).isEqualTo("slurm job %d submitted".formatted(job));
  }

  @Test
  void aQueuedJobIsRunningWithTheQueueInReasonAndMessage() {
    FakeSlurmBackends.poll(backend);
    ContainerStatus queued = status(backend, id);
    assertThat(queued.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThat(queued.getReason()).isEqualTo("SlurmPending");
    assertThat(queued.getMessage()).isEqualTo("slurm job %d PENDING (Priority)".formatted(job));
  }

  @Test
  void aRunningJobIsRunningWithItsStartTime() {
    fake.slurm.run(job);
    FakeSlurmBackends.poll(backend);
    ContainerStatus running = status(backend, id);
    assertThat(running.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThat(running.getReason()).isEmpty();
    assertThat(running.getMessage()).isEqualTo("slurm job %d RUNNING".formatted(job));
    assertThat(running.getStartedAt()).isPositive();
  }

  /**
   * slurmd opens the job's output before the script runs: a failed job that left no output file never
   * ran its script, and Slurm's "FAILED, exit 15:53" alone does not say why (the usual cause: a
   * directory the job's user cannot write).
   */
  @Test
  void aFailedJobThatWroteNoOutputFileSaysSoAndOneThatDidDoesNot() throws Exception {
    fake.slurm.end(job, "FAILED", 15, 53);
    FakeSlurmBackends.poll(backend);
    String sandbox = backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainers(0).getPodSandboxId();
    Path stdout = tmp.resolve("work").resolve(sandbox).resolve(id).resolve("stdout");
    assertThat(status(backend, id).getMessage()).isEqualTo(("slurm job %d FAILED, exit 15:53; it ended before writing %s:"
        + " slurmd could not open it as the job's user, or the node failed first").formatted(job, stdout));

    String second = fake.createIn(backend, sandbox, "wrote", List.of("false"));
    start(backend, second);
    long secondJob = fake.slurm.jobIds().getLast();
    Files.writeString(tmp.resolve("work").resolve(sandbox).resolve(second).resolve("stdout"), "ran\n");
    fake.slurm.end(secondJob, "FAILED", 1, 0);
    FakeSlurmBackends.poll(backend);
    assertThat(status(backend, second).getMessage()).isEqualTo("slurm job %d FAILED, exit 1:0".formatted(secondJob));
  }

  @ParameterizedTest(name = "{0} exit {1}:{2}")
  @CsvSource({
      "COMPLETED, 0, 0, Completed, 0",
      "FAILED, 3, 0, Error, 3",
      "TIMEOUT, 0, 0, TimeLimit, 143",
      "OUT_OF_MEMORY, 0, 0, OOMKilled, 137",
      "FAILED, 0, 9, Error, 137"})
  void anEndedJobIsExitedWithTheKubeletsReasonAndCode(String state, int code, int signal, String reason, int exit) {
    fake.slurm.end(job, state, code, signal);
    FakeSlurmBackends.poll(backend);
    ContainerStatus ended = status(backend, id);
    assertThat(ended.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(ended.getReason()).isEqualTo(reason);
    assertThat(ended.getExitCode()).isEqualTo(exit);
    assertThat(ended.getStartedAt()).isEqualTo(1_000_000_000_000L);
    assertThat(ended.getFinishedAt()).isEqualTo(2_000_000_000_000L);
  }

  @Test
  void anUnreachableClusterIsUnavailableForStatusButListsTheJobAsLastKnown() {
    fake.slurm.unreachable(true);
    assertThatThrownBy(() -> FakeSlurmBackends.poll(backend)).isInstanceOf(CrigateException.Unavailable.class);

    assertThatThrownBy(() -> status(backend, id)).isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageContaining("Unable to contact slurm controller");
    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .singleElement().satisfies(c -> assertThat(c.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING));
    assertThat(backend.status(StatusRequest.getDefaultInstance()).getStatus().getConditions(0).getStatus()).isFalse();

    fake.slurm.unreachable(false);
    FakeSlurmBackends.poll(backend);
    assertThat(status(backend, id).getReason()).isEqualTo("SlurmPending");
  }

  @Test
  void aRefusedLoginIsPermissionDeniedForStatusButListsTheJobAsLastKnown() {
    fake.slurm.refuseLogin(true);
    assertThatThrownBy(() -> FakeSlurmBackends.poll(backend)).isInstanceOf(CrigateException.PermissionDenied.class);

    assertThatThrownBy(() -> status(backend, id)).isInstanceOf(CrigateException.PermissionDenied.class)
        .hasMessageContaining("login refused");
    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .singleElement().satisfies(c -> assertThat(c.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING));
    assertThat(backend.jobsByState()).containsEntry("UNKNOWN", 1L);
    assertThat(backend.status(StatusRequest.getDefaultInstance()).getStatus().getConditions(0).getStatus()).isFalse();
  }
}
