package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerSavesTest {

  @TempDir
  Path dir;

  private static Records.Container created(String id) {
    return new Records.Container(id, "pod", new byte[] {1}, 1, 0, false, 0, false, null, null);
  }

  /** What a restarted backend would read. */
  private RecordStore reopened() {
    return new RecordStore(new FileDurableStore(dir));
  }

  /** Runs the scheduled flushes when the test says, instead of after a delay. */
  private static final class ManualTimer implements ContainerSaves.FlushTimer {
    private final List<Runnable> scheduled = new ArrayList<>();

    @Override
    public synchronized void schedule(Runnable flush) {
      scheduled.add(flush);
    }

    /** Runs what is due as the timer thread would; a flush scheduled by one of them waits for the next call. */
    void fire() {
      List<Runnable> due;
      synchronized (this) {
        due = List.copyOf(scheduled);
        scheduled.clear();
      }
      due.forEach(Runnable::run);
    }

    synchronized int pending() {
      return scheduled.size();
    }

    @Override
    public void close() {}
  }

  private final ManualTimer timer = new ManualTimer();

  @Test
  void laterSavesWaitForTheTimerAndGoInOneBatch() {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)), timer)) {
      saves.now(created("a"));
      saves.later(created("a").submitted(42, 2));
      saves.later(created("b").submitted(43, 2));

      assertThat(timer.pending()).isEqualTo(1);
      assertThat(reopened().containers()).doesNotContainKey("b");
      assertThat(reopened().containers().get("a").jobId()).isNotEqualTo(42);

      timer.fire();

      assertThat(reopened().containers().get("a").jobId()).isEqualTo(42);
      assertThat(reopened().containers().get("b").jobId()).isEqualTo(43);
    }
  }

  @Test
  void aLaterSaveReachesDiskWithoutAnyFurtherCall() {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)))) {
      saves.now(created("a"));
      saves.later(created("a").submitted(42, 2));
      saves.later(created("b").submitted(43, 2));

      await().atMost(Duration.ofSeconds(5)).until(() -> reopened().containers().get("b") != null);
      assertThat(reopened().containers().get("a").jobId()).isEqualTo(42);
    }
  }

  @Test
  void aSaveNowReplacesWhatIsPendingSoALateBatchCannotUndoIt() {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)), timer)) {
      Records.Container submitted = created("a").submitted(42, 2);
      saves.later(submitted);
      saves.now(submitted.stopping());
      timer.fire();

      assertThat(reopened().containers().get("a").stopRequested()).isTrue();
    }
  }

  @Test
  void aRemovedContainerIsNotBroughtBackByAPendingSave() {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)), timer)) {
      saves.now(created("a"));
      saves.later(created("a").submitted(42, 2));
      saves.remove("a");
      timer.fire();

      assertThat(reopened().containers()).doesNotContainKey("a");
    }
  }

  @Test
  void closeWritesWhatIsPending() {
    ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)), timer);
    saves.later(created("a").submitted(42, 2));
    saves.close();

    assertThat(reopened().containers().get("a").jobId()).isEqualTo(42);
  }
}
