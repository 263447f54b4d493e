package io.crigate.backend.slurm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.io.ByteArrayOutputStream;

/**
 * Writes a container log in the CRI format the kubelet reads:
 * {@code <RFC3339Nano> <stdout|stderr> <P|F> <content>\n}. A line longer than
 * {@link #MAX_LINE_BYTES} is split into P(artial) records ending with one F(ull) record.
 */
final class CriLogWriter implements AutoCloseable {

  static final int MAX_LINE_BYTES = 16 * 1024;
  private static final DateTimeFormatter RFC3339_NANO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.nnnnnnnnn'Z'").withZone(ZoneOffset.UTC);

  private final Path path;
  private final Clock clock;
  private OutputStream out;

  CriLogWriter(Path path, Clock clock) throws IOException {
    this.path = path;
    this.clock = clock;
    this.out = open(path);
  }

  private static OutputStream open(Path path) throws IOException {
    Files.createDirectories(path.getParent());
    return Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  synchronized void write(String stream, byte[] content, boolean full) throws IOException {
    Instant now = clock.instant();
    ByteArrayOutputStream record = new ByteArrayOutputStream(content.length + 48);
    record.writeBytes((RFC3339_NANO.format(now) + " " + stream + " " + (full ? "F" : "P") + " ")
        .getBytes(StandardCharsets.US_ASCII));
    record.writeBytes(content);
    record.write('\n');
    out.write(record.toByteArray());
    out.flush();
  }

  /** After the kubelet rotated the file away: later records go to a new file at the same path. */
  synchronized void reopen() throws IOException {
    out.close();
    out = open(path);
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
