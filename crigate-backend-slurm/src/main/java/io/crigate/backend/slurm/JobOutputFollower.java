package io.crigate.backend.slurm;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Follows a job's stdout and stderr files from their current end, as {@code tail -f} would, until the
 * job ends (then the rest is copied) or the following thread is interrupted. The files are on the
 * shared work dir, so polling is the only notification that works for writes from another node.
 */
final class JobOutputFollower {

  static final Duration POLL = Duration.ofMillis(200);

  private final Path stdout;
  private final Path stderr;
  private final BooleanSupplier ended;

  JobOutputFollower(Path stdout, Path stderr, BooleanSupplier ended) {
    this.stdout = stdout;
    this.stderr = stderr;
    this.ended = ended;
  }

  void follow(OutputStream out, OutputStream err) {
    long outAt = size(stdout);
    long errAt = size(stderr);
    ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
    while (true) {
      boolean last = ended.getAsBoolean(); // read before copying, so output written before the end is copied
      long outNext = copy(stdout, outAt, out, buffer);
      long errNext = copy(stderr, errAt, err, buffer);
      boolean idle = outNext == outAt && errNext == errAt;
      outAt = outNext;
      errAt = errNext;
      if (last && idle) {
        return;
      }
      if (idle) {
        try {
          Thread.sleep(POLL);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies what {@code file} holds beyond {@code from}; the new offset. */
  private static long copy(Path file, long from, OutputStream to, ByteBuffer buffer) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long at = from;
      buffer.clear();
      for (int n; (n = channel.read(buffer, at)) > 0; buffer.clear()) {
        to.write(buffer.array(), 0, n);
        to.flush();
        at += n;
      }
      return at;
    } catch (NoSuchFileException e) {
      return from;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot follow " + file, e);
    }
  }
}
