package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which job a streaming session may join, against the poller's cache: a job the last poll saw
 * PENDING may have started since (the quickstart's port forward met one whose web server already
 * listened), so the cache is checked once more with Slurm before a session is refused.
 */
class RunningJobsTest {

  @TempDir Path tmp;
  private final CapturedStreams captured = new CapturedStreams();
  private FakeSlurmBackends fake;
  private SlurmBackend backend;
  private String id;
  private long job;

  @BeforeEach
  void queueOne() {
    fake = new FakeSlurmBackends(tmp);
    backend = fake.open();
    backend.serveStreams(captured);
    id = fake.create(backend, "web", List.of("sleep", "600"))[1];
    start(backend, id);
    job = fake.slurm.jobIds().getFirst();
    FakeSlurmBackends.poll(backend); // the cache now says PENDING
  }

  @AfterEach
  void close() {
    fake.close();
  }

  private AttachRequest attach() {
    return AttachRequest.newBuilder().setContainerId(id).setStdout(true).build();
  }

  @Test
  void aJobThatStartedSinceTheLastPollIsJoinedNotRefusedAsPending() {
    fake.slurm.run(job); // no poll since

    assertThat(backend.attach(attach()).getUrl()).isEqualTo("test://attach");
  }

  @Test
  void aJobStillPendingIsRefusedNamingWhy() {
    assertThatThrownBy(() -> backend.attach(attach())).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("slurm job %d is still PENDING (Priority)".formatted(job));
  }
}
