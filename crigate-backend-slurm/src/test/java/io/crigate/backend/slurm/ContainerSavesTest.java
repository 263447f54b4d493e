package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
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
  void aSaveNowReplacesWhatIsPendingSoALateBatchCannotUndoIt() throws Exception {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)))) {
      Records.Container submitted = created("a").submitted(42, 2);
      saves.later(submitted);
      saves.now(submitted.stopping());
      Thread.sleep(3 * ContainerSaves.DELAY_MILLIS);

      assertThat(reopened().containers().get("a").stopRequested()).isTrue();
    }
  }

  @Test
  void aRemovedContainerIsNotBroughtBackByAPendingSave() throws Exception {
    try (ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)))) {
      saves.now(created("a"));
      saves.later(created("a").submitted(42, 2));
      saves.remove("a");
      Thread.sleep(3 * ContainerSaves.DELAY_MILLIS);

      assertThat(reopened().containers()).doesNotContainKey("a");
    }
  }

  @Test
  void closeWritesWhatIsPending() {
    ContainerSaves saves = new ContainerSaves(new RecordStore(new FileDurableStore(dir)));
    saves.later(created("a").submitted(42, 2));
    saves.close();

    assertThat(reopened().containers().get("a").jobId()).isEqualTo(42);
  }
}
