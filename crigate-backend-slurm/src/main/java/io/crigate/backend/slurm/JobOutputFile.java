package io.crigate.backend.slurm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's stdout or stderr file, read the way a root daemon must read a file in a directory that
 * the job's user owns: the job can replace the file by a link to {@code /etc/shadow} or to the
 * login-seal key at any time, and crigate would then copy that file into the container's log. So
 * the file is opened without following links, and only a regular file owned by the owner of its
 * directory (the user crigate handed the directory to) is read. Anything else is refused once,
 * with a log line, and the stream stays silent from then on.
 *
 * <p>Left open: between the check and the open the job could swap in a FIFO, whose open blocks
 * until a writer appears; that stalls only this container's own log.
 */
final class JobOutputFile {

  private static final Logger LOG = LoggerFactory.getLogger(JobOutputFile.class);
  private static final int MAX_READ = 1 << 20;

  private final String containerId;
  private final Path file;
  private boolean refused;

  JobOutputFile(String containerId, Path file) {
    this.containerId = containerId;
    this.file = file;
  }

  /** Up to 1 MiB from {@code offset}; empty when there is nothing new, no file yet, or the file is refused. */
  byte[] readFrom(long offset) throws IOException {
    if (refused) {
      return new byte[0];
    }
    try {
      PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!attributes.isRegularFile()) {
        return refuse("it is not a regular file (%s)".formatted(attributes.isSymbolicLink() ? "a symbolic link" : "a special file"));
      }
      var expected = Files.readAttributes(file.getParent(), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).owner();
      if (!attributes.owner().equals(expected)) {
        return refuse("it is owned by %s, not by %s who owns its directory".formatted(attributes.owner().getName(),
            expected.getName()));
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        long available = channel.size() - offset;
        if (available <= 0) {
          return new byte[0];
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(available, MAX_READ));
        channel.read(buffer, offset);
        buffer.flip();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
      }
    } catch (NoSuchFileException e) {
      return new byte[0];
    } catch (FileSystemException e) {
      // ELOOP: swapped for a link between the check and the open
      return refuse(e.getReason() == null ? e.toString() : e.getReason());
    }
  }

  private byte[] refuse(String why) {
    refused = true;
    LOG.warn("container {}: not reading job output {}: {}; the job may have tried to make crigate copy another "
        + "file into its log, and this stream stays empty from now on", containerId, file, why);
    return new byte[0];
  }
}
