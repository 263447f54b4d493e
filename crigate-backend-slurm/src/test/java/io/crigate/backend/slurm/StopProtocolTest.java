package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.StopContainerRequest;
import io.crigate.api.cri.v1.StopPodSandboxRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** StopContainer and StopPodSandbox against an in-memory Slurm; the grace period runs on a clock the test drives. */
class StopProtocolTest {

  /** Moves one second on at every reading, so a grace period of n seconds passes after n readings. */
  private static final class TickingClock extends Clock {
    private final AtomicLong seconds = new AtomicLong(1_800_000_000L);

    @Override
    public Instant instant() {
      return Instant.ofEpochSecond(seconds.getAndIncrement());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  @TempDir Path tmp;
  private FakeSlurmBackends fake;
  private SlurmBackend backend;

  @BeforeEach
  void open() {
    fake = new FakeSlurmBackends(tmp, new TickingClock());
    backend = fake.open();
  }

  @AfterEach
  void close() {
    fake.close();
  }

  private String running(String name) {
    String id = fake.create(backend, name, List.of("sleep", "600"))[1];
    start(backend, id);
    fake.slurm.run(fake.slurm.jobIds().getLast());
    FakeSlurmBackends.poll(backend);
    return id;
  }

  private void stop(String id, long timeoutSeconds) {
    backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(id).setTimeout(timeoutSeconds).build());
  }

  @Test
  void aGracePeriodSendsTermOnlyWhenTheJobEndsOnIt() {
    String id = running("term");
    long job = fake.slurm.jobIds().getFirst();

    stop(id, 30);

    assertThat(fake.slurm.cancels()).containsExactly(new FakeSlurm.Cancel(List.of(job), "TERM"));
    ContainerStatus stopped = status(backend, id);
    assertThat(stopped.getReason()).isEqualTo(JobOutcome.CANCELLED);
    assertThat(stopped.getExitCode()).isEqualTo(143);
  }

  @Test
  void aJobThatOutlivesTheGracePeriodIsKilledThenCancelled() {
    String id = running("stubborn");
    long job = fake.slurm.jobIds().getFirst();
    fake.slurm.ignoreTerm(job);

    stop(id, 5);

    assertThat(fake.slurm.cancels()).containsExactly(new FakeSlurm.Cancel(List.of(job), "TERM"),
        new FakeSlurm.Cancel(List.of(job), "KILL"), new FakeSlurm.Cancel(List.of(job), ""));
    assertThat(status(backend, id).getExitCode()).isEqualTo(128 + 9);
  }

  @Test
  void aQueuedJobIsCancelledAtOnceWhateverTheGracePeriod() {
    String id = fake.create(backend, "queued", List.of("true"))[1];
    start(backend, id);
    FakeSlurmBackends.poll(backend);

    stop(id, 30);

    assertThat(fake.slurm.cancels()).containsExactly(new FakeSlurm.Cancel(fake.slurm.jobIds(), ""));
    assertThat(status(backend, id).getReason()).isEqualTo(JobOutcome.CANCELLED);
  }

  @Test
  void aZeroTimeoutCancelsAndAnEndedContainerIsNotCancelledAgain() {
    String id = running("zero");

    stop(id, 0);
    stop(id, 0);

    assertThat(fake.slurm.cancels()).containsExactly(new FakeSlurm.Cancel(fake.slurm.jobIds(), ""));
  }

  @Test
  void stoppingAPodCancelsAllItsJobsInOneScancel() {
    String[] first = fake.create(backend, "pod", List.of("sleep", "600"));
    String second = fake.createIn(backend, first[0], "second", List.of("sleep", "600"));
    String third = fake.createIn(backend, first[0], "third", List.of("sleep", "600"));
    for (String id : List.of(first[1], second, third)) {
      start(backend, id);
    }
    FakeSlurmBackends.poll(backend);

    backend.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(first[0]).build());

    assertThat(fake.slurm.cancels()).singleElement().satisfies(cancel -> {
      assertThat(cancel.signal()).isEmpty();
      assertThat(cancel.jobIds()).containsExactlyInAnyOrderElementsOf(fake.slurm.jobIds());
    });
    for (String id : List.of(first[1], second, third)) {
      assertThat(status(backend, id).getReason()).isEqualTo(JobOutcome.CANCELLED);
    }
  }

  @Test
  void aRunnerContainerIsRemovedInsideTheAllocationBeforeTheCancel() {
    fake.close();
    fake = new FakeSlurmBackends(tmp.resolve("podman"), new TickingClock());
    backend = fake.open(FakeSlurmBackends.settings(tmp.resolve("podman/work").toString()).put("runner", "podman"));
    String id = running("podman");

    stop(id, 0);

    assertThat(fake.slurm.execs()).singleElement().satisfies(argv ->
        assertThat(argv).startsWith("podman", "rm").endsWith(SlurmClient.NAME_PREFIX + id));
    assertThat(fake.slurm.cancels()).containsExactly(new FakeSlurm.Cancel(fake.slurm.jobIds(), ""));
  }
}
