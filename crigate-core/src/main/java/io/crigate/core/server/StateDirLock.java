package io.crigate.core.server;

import io.crigate.core.state.PrivateFiles;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on the state directory, so two crigates can never write the same ownership
 * database. The kernel releases it when the process dies, so a crash leaves no stale lock; the file
 * holds the owner's pid only to make the refusal message useful.
 */
public final class StateDirLock implements AutoCloseable {

  static final String FILE_NAME = "crigate.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private StateDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** @throws CrigateException.FailedPrecondition when another crigate holds the directory */
  public static StateDirLock acquire(Path stateDir) {
    Path file = stateDir.resolve(FILE_NAME);
    try {
      PrivateFiles.directory(stateDir);
      FileChannel channel = FileChannel.open(PrivateFiles.file(file), StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock = tryLock(channel);
      if (lock == null) {
        String owner = Files.readString(file).trim();
        channel.close();
        throw new CrigateException.FailedPrecondition("state dir %s is in use by another crigate%s; stop it or choose another --state-dir"
            .formatted(stateDir, owner.isEmpty() ? "" : " (pid " + owner + ")"));
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
      channel.force(false);
      return new StateDirLock(channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock state dir " + stateDir, e);
    }
  }

  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException heldByThisProcess) {
      return null;
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release state dir lock", e);
    }
  }
}
