package io.crigate.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirLockTest {

  @TempDir
  Path dir;

  @Test
  void secondHolderIsRefusedWithTheOwnersPid() {
    Path state = dir.resolve("state");
    try (StateDirLock first = StateDirLock.acquire(state)) {
      assertThat(state.resolve(StateDirLock.FILE_NAME)).hasContent(ProcessHandle.current().pid() + "\n");

      assertThatThrownBy(() -> StateDirLock.acquire(state))
          .isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessage("state dir %s is in use by another crigate (pid %d); stop it or choose another --state-dir"
              .formatted(state, ProcessHandle.current().pid()));
    }
  }

  @Test
  void releasedLockCanBeTakenAgain() {
    Path state = dir.resolve("state");
    StateDirLock.acquire(state).close();

    try (StateDirLock again = StateDirLock.acquire(state)) {
      assertThat(state.resolve(StateDirLock.FILE_NAME)).exists();
    }
  }
}
