package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogPumpTest {

  @TempDir Path dir;

  /**
   * The backend closes its record store right after its pumps: a checkpoint still running when
   * close() returned used to land in a closed store (a file appearing in a deleted directory).
   */
  @Test
  void closeReturnsOnlyAfterACheckpointInProgressIsWritten() throws Exception {
    Files.writeString(dir.resolve("stdout"), "done\n");
    Files.writeString(dir.resolve("stderr"), "");
    List<String> events = new CopyOnWriteArrayList<>();
    CountDownLatch checkpointing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    LogPump pump = new LogPump("0123456789abcdef", dir.resolve("stdout"), dir.resolve("stderr"),
        new CriLogWriter(dir.resolve("container.log"), Clock.systemUTC()), LogPump.Offsets.START, () -> true,
        offsets -> {
          checkpointing.countDown();
          awaitQuietly(release);
          events.add("checkpoint " + offsets);
        });
    pump.start();
    checkpointing.await();

    Thread closer = Thread.ofPlatform().start(() -> {
      pump.close();
      events.add("closed");
    });
    while (closer.getState() != Thread.State.TERMINATED && closer.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }
    assertThat(closer.getState()).as("close() waits for the pump").isEqualTo(Thread.State.TIMED_WAITING);
    release.countDown();
    closer.join();

    assertThat(events).containsExactly("checkpoint " + new LogPump.Offsets(5, 0, false), "closed");
    assertThat(Files.readString(dir.resolve("container.log"))).contains("stdout F done");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
