package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The submit state machine, CREATED → submitting → started, against an in-memory Slurm. */
class SubmissionsTest {

  @TempDir Path tmp;
  private FakeSlurmBackends fake;
  private SlurmBackend backend;

  @BeforeEach
  void open() {
    fake = new FakeSlurmBackends(tmp);
    backend = fake.open();
  }

  @AfterEach
  void close() {
    fake.close();
  }

  /** A container whose first StartContainer meets {@code sbatch}, and fails with {@code kind}; returns its id. */
  private String failedStart(String name, FakeSlurm.Submit sbatch, Class<? extends Throwable> kind) {
    String id = fake.create(backend, name, List.of("true"))[1];
    fake.slurm.nextSubmit(sbatch);
    assertThatThrownBy(() -> start(backend, id)).isInstanceOf(kind);
    return id;
  }

  @Test
  void startSubmitsTheJobOnceAndReportsItRunningWhileQueued() {
    String id = fake.create(backend, "once", List.of("true"))[1];
    assertThat(status(backend, id).getState()).isEqualTo(ContainerState.CONTAINER_CREATED);
    assertThat(fake.slurm.submitted()).isEmpty();

    start(backend, id);
    FakeSlurmBackends.poll(backend);

    assertThat(fake.slurm.submitted()).singleElement().satisfies(spec -> {
      assertThat(spec.name()).isEqualTo(SlurmClient.NAME_PREFIX + id);
      assertThat(spec.script()).contains("true");
    });
    ContainerStatus queued = status(backend, id);
    assertThat(queued.getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThat(queued.getReason()).isEqualTo("SlurmPending");
    assertThatThrownBy(() -> start(backend, id)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("already started");
    assertThat(fake.slurm.submitted()).hasSize(1);
  }

  @Test
  void aJobSbatchRefusedLeavesTheContainerCreatedAndStartableAgain() {
    String id = failedStart("refused", FakeSlurm.Submit.REJECT, CrigateException.InvalidArgument.class);
    assertThat(status(backend, id).getState()).isEqualTo(ContainerState.CONTAINER_CREATED);

    start(backend, id);
    assertThat(fake.slurm.submitted()).hasSize(1);
    assertThat(status(backend, id).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
  }

  @Test
  void aConnectionLostAfterSlurmAcceptedTheJobAdoptsItInsteadOfSubmittingAgain() {
    String id = failedStart("adopt", FakeSlurm.Submit.LOST_AFTER, CrigateException.Unavailable.class);

    // the job may exist: CREATED would make the kubelet start it again
    assertThat(status(backend, id).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThatThrownBy(() -> start(backend, id)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("already started as slurm job " + fake.slurm.jobIds().getFirst());

    assertThat(fake.slurm.submitted()).hasSize(1);
    fake.slurm.exit(fake.slurm.jobIds().getFirst(), 0);
    FakeSlurmBackends.poll(backend);
    assertThat(status(backend, id).getReason()).isEqualTo(JobOutcome.COMPLETED);
  }

  @Test
  void aConnectionLostBeforeSlurmSawTheJobEndsTheContainerUnknownAndNeverSubmitsIt() {
    String id = failedStart("lost", FakeSlurm.Submit.LOST_BEFORE, CrigateException.Unavailable.class);

    ContainerStatus lost = status(backend, id);
    assertThat(lost.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(lost.getReason()).isEqualTo(JobOutcome.UNKNOWN);
    assertThat(lost.getExitCode()).isEqualTo(JobOutcome.UNKNOWN_EXIT_CODE);
    assertThatThrownBy(() -> start(backend, id)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("has exited");
    assertThat(fake.slurm.submitted()).isEmpty();
  }

  @Test
  void anUnreachableClusterDuringTheLookupKeepsTheMarkerForTheNextAttempt() {
    String id = failedStart("retry", FakeSlurm.Submit.LOST_AFTER, CrigateException.Unavailable.class);

    fake.slurm.unreachable(true);
    assertThatThrownBy(() -> status(backend, id)).isInstanceOf(CrigateException.Unavailable.class);
    fake.slurm.unreachable(false);

    assertThatThrownBy(() -> start(backend, id)).hasMessageContaining("already started");
    assertThat(fake.slurm.submitted()).hasSize(1);
  }
}
