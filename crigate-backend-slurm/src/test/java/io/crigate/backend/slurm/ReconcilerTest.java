package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a restarted backend makes of the containers the previous one left, against an in-memory Slurm. */
class ReconcilerTest {

  @TempDir Path tmp;
  private FakeSlurmBackends fake;

  @AfterEach
  void close() {
    fake.close();
  }

  /** Opens the first backend; its containers are created by the test. */
  private SlurmBackend first() {
    fake = new FakeSlurmBackends(tmp);
    return fake.open();
  }

  /** crigate starts again on the same store; the first backend is closed as a dead process would be. */
  private SlurmBackend restart(SlurmBackend previous) {
    previous.close();
    return fake.open();
  }

  @Test
  void aJobSubmittedJustBeforeACrashIsAdoptedByNameAfterTheRestart() {
    SlurmBackend before = first();
    String id = fake.create(before, "crash", List.of("true"))[1];
    fake.slurm.nextSubmit(FakeSlurm.Submit.CRASH_AFTER);
    assertThatThrownBy(() -> start(before, id)).isInstanceOf(SimulatedCrash.class);

    SlurmBackend after = restart(before);
    long job = fake.slurm.jobIds().getFirst();
    assertThat(status(after, id).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThatThrownBy(() -> start(after, id)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("already started as slurm job " + job);

    fake.slurm.exit(job, 0);
    FakeSlurmBackends.poll(after);
    assertThat(status(after, id).getReason()).isEqualTo(JobOutcome.COMPLETED);
    assertThat(fake.slurm.submitted()).hasSize(1);
  }

  @Test
  void theBackgroundLookupSettlesEveryUnstartedContainerWithoutAnyCallForIt() {
    SlurmBackend before = first();
    String crashed = fake.create(before, "crashed", List.of("true"))[1];
    String created = fake.create(before, "created", List.of("true"))[1];
    fake.slurm.nextSubmit(FakeSlurm.Submit.CRASH_AFTER);
    assertThatThrownBy(() -> start(before, crashed)).isInstanceOf(SimulatedCrash.class);

    SlurmBackend after = restart(before);

    // ListContainers does not reconcile: only the background lookup settles these, the one
    // without a job to CREATED (while unsettled it shows RUNNING, as its job may exist)
    await().atMost(Duration.ofSeconds(30)).until(() -> after.listContainers(ListContainersRequest.getDefaultInstance())
        .getContainersList().stream().filter(c -> c.getId().equals(created))
        .allMatch(c -> c.getState() == ContainerState.CONTAINER_CREATED));
    FakeSlurmBackends.poll(after);
    // and the crashed one's job adopted and followed (jobsByState does not reconcile either)
    assertThat(after.jobsByState()).containsEntry("PENDING", 1L).containsEntry("NOT_SUBMITTED", 1L);
    start(after, created);
    assertThat(fake.slurm.submitted()).hasSize(2);
  }

  @Test
  void aCrashedSubmissionSlurmNoLongerKnowsEndsUnknownAndIsNeverSubmittedAgain() {
    SlurmBackend before = first();
    String id = fake.create(before, "purged", List.of("true"))[1];
    fake.slurm.nextSubmit(FakeSlurm.Submit.CRASH_AFTER);
    assertThatThrownBy(() -> start(before, id)).isInstanceOf(SimulatedCrash.class);
    fake.slurm.forget(fake.slurm.jobIds().getFirst());

    SlurmBackend after = restart(before);

    ContainerStatus lost = status(after, id);
    assertThat(lost.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(lost.getReason()).isEqualTo(JobOutcome.UNKNOWN);
    assertThatThrownBy(() -> start(after, id)).isInstanceOf(CrigateException.FailedPrecondition.class);
    assertThat(fake.slurm.submitted()).hasSize(1);
  }

  @Test
  void aJobThatEndedWhileCrigateWasDownIsReadFromAccounting() {
    SlurmBackend before = first();
    String id = fake.create(before, "ended", List.of("false"))[1];
    start(before, id);
    long job = fake.slurm.jobIds().getFirst();

    before.close();
    fake.slurm.exit(job, 3);
    fake.slurm.purgeFromController(job);
    SlurmBackend after = fake.open();
    // No check of the state before this poll: the reopened backend's own poller polls at once, so
    // it may already have read the job's end.
    FakeSlurmBackends.poll(after);

    ContainerStatus ended = status(after, id);
    assertThat(ended.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(ended.getReason()).isEqualTo(JobOutcome.ERROR);
    assertThat(ended.getExitCode()).isEqualTo(3);
  }
}
