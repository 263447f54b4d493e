package io.crigate.interlink.plugin;

import io.crigate.interlink.wire.LogOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.BooleanSupplier;

/**
 * Reads a CRI-format container log ({@code <time> <stream> <P|F> <text>}, as containerd and the
 * Slurm backend's log pump write it) back into the plain text kubectl shows, applying Tail, Bytes,
 * SinceSeconds/SinceTime and Timestamps. With Follow it keeps reading what is appended, flushing
 * each line, until {@code ended} says the container is done and the file has stopped growing.
 */
final class CriLogReader {

  private final Duration pollInterval;

  CriLogReader(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  void copy(Path file, LogOptions options, Instant now, BooleanSupplier ended, OutputStream out)
      throws IOException, InterruptedException {
    Instant since = options.since(now);
    Sink sink = new Sink(out, options.bytes() > 0 ? options.bytes() : Long.MAX_VALUE, options.timestamps());
    long offset = 0;
    if (Files.exists(file)) {
      offset = initial(file, options.tail(), since, sink);
    }
    if (!options.follow()) {
      return;
    }
    Partial partial = new Partial();
    boolean endSeen = false;
    while (!sink.full()) {
      long size = Files.exists(file) ? Files.size(file) : 0;
      if (size > offset) {
        offset = append(file, offset, size, since, partial, sink);
        endSeen = false;
        continue;
      }
      if (endSeen) {
        return;
      }
      // one more round after the end: the pump may still be writing the job's last lines
      endSeen = ended.getAsBoolean();
      Thread.sleep(pollInterval.toMillis());
    }
  }

  /** Writes the existing content (last {@code tail} lines); returns the offset of the first byte not read. */
  private static long initial(Path file, int tail, Instant since, Sink sink) throws IOException {
    byte[] content;
    long end;
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      end = raf.length();
      content = new byte[(int) Math.min(end, Integer.MAX_VALUE - 8)];
      raf.readFully(content);
    }
    int complete = lastNewline(content) + 1;
    Deque<Line> lines = new ArrayDeque<>();
    Partial partial = new Partial();
    for (String raw : new String(content, 0, complete, StandardCharsets.UTF_8).split("\n")) {
      Line line = partial.feed(raw);
      if (line != null && (since == null || !line.time().isBefore(since))) {
        lines.addLast(line);
        if (tail > 0 && lines.size() > tail) {
          lines.removeFirst();
        }
      }
    }
    for (Line line : lines) {
      sink.write(line);
    }
    sink.flush();
    return complete;
  }

  private static long append(Path file, long from, long to, Instant since, Partial partial, Sink sink) throws IOException {
    byte[] chunk = new byte[(int) Math.min(to - from, 1 << 20)];
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      raf.seek(from);
      raf.readFully(chunk);
    }
    int complete = lastNewline(chunk) + 1;
    if (complete == 0) {
      return from;
    }
    for (String raw : new String(chunk, 0, complete, StandardCharsets.UTF_8).split("\n")) {
      Line line = partial.feed(raw);
      if (line != null && (since == null || !line.time().isBefore(since))) {
        sink.write(line);
      }
    }
    sink.flush();
    return from + complete;
  }

  private static int lastNewline(byte[] bytes) {
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  record Line(Instant time, String timestamp, String text) {}

  /** Joins P (partial) records with the F record that ends them, as the kubelet does. */
  static final class Partial {
    private final StringBuilder pending = new StringBuilder();

    Line feed(String raw) {
      String[] parts = raw.split(" ", 4);
      if (parts.length < 3) {
        return null;
      }
      Instant time;
      try {
        time = Instant.parse(parts[0]);
      } catch (RuntimeException e) {
        return null;
      }
      String text = parts.length == 4 ? parts[3] : "";
      if (parts[2].equals("P")) {
        pending.append(text);
        return null;
      }
      String whole = pending.append(text).toString();
      pending.setLength(0);
      return new Line(time, parts[0], whole);
    }
  }

  private static final class Sink {
    private final OutputStream out;
    private final boolean timestamps;
    private long remaining;

    Sink(OutputStream out, long limit, boolean timestamps) {
      this.out = out;
      this.remaining = limit;
      this.timestamps = timestamps;
    }

    void write(Line line) throws IOException {
      if (remaining <= 0) {
        return;
      }
      ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      if (timestamps) {
        buffer.writeBytes((line.timestamp() + " ").getBytes(StandardCharsets.UTF_8));
      }
      buffer.writeBytes(line.text().getBytes(StandardCharsets.UTF_8));
      buffer.write('\n');
      byte[] bytes = buffer.toByteArray();
      int n = (int) Math.min(bytes.length, remaining);
      out.write(bytes, 0, n);
      remaining -= n;
    }

    void flush() throws IOException {
      out.flush();
    }

    boolean full() {
      return remaining <= 0;
    }
  }
}
