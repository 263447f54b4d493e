package io.crigate.cli.ctl;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes the CRI container log format, one record a line:
 * {@code <RFC3339Nano timestamp> <stdout|stderr> <tag> <content>}, where tag {@code P} marks a
 * partial record (the runtime split a long line) and {@code F} the record that ends a line.
 *
 * <p>Bytes arrive in arbitrary chunks (the file is followed while the container writes), so an
 * unfinished record is kept until its newline arrives, and partial records are joined per stream
 * because stdout and stderr records interleave.
 */
final class CriLogDecoder {

  /** One whole line of container output. */
  record LogLine(String timestamp, String stream, String content) {
    boolean isStderr() {
      return stream.equals("stderr");
    }
  }

  private final ByteArrayOutputStream unfinishedRecord = new ByteArrayOutputStream();
  private final Map<String, StringBuilder> partialLines = new HashMap<>();

  /** Feeds the next {@code length} bytes of the file; returns the lines they complete. */
  List<LogLine> feed(byte[] bytes, int length) {
    List<LogLine> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < length; i++) {
      if (bytes[i] == '\n') {
        unfinishedRecord.write(bytes, start, i - start);
        decode(unfinishedRecord.toString(StandardCharsets.UTF_8), lines);
        unfinishedRecord.reset();
        start = i + 1;
      }
    }
    unfinishedRecord.write(bytes, start, length - start);
    return lines;
  }

  private void decode(String record, List<LogLine> lines) {
    String[] fields = record.split(" ", 4);
    if (fields.length < 3 || fields[2].isEmpty()) {
      // Not a CRI record (say, a file written by something else): show it rather than lose it.
      lines.add(new LogLine("", "stdout", record));
      return;
    }
    String timestamp = fields[0];
    String stream = fields[1];
    String content = fields.length == 4 ? fields[3] : "";
    StringBuilder partial = partialLines.computeIfAbsent(stream, s -> new StringBuilder());
    partial.append(content);
    // The tag may carry more flags after ':'; only its first letter says partial or full.
    if (fields[2].charAt(0) != 'P') {
      lines.add(new LogLine(timestamp, stream, partial.toString()));
      partial.setLength(0);
    }
  }
}
