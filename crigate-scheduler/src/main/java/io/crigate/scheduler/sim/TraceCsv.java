package io.crigate.scheduler.sim;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads and writes traces as CSV with the header {@value #HEADER}. Lines starting with {@code #}
 * and blank lines are ignored; a malformed line is reported with its number.
 */
public final class TraceCsv {

  public static final String HEADER = "at_seconds,pod,image,cpu_millis,memory_mib,duration_seconds";

  private TraceCsv() {}

  public static List<PodArrival> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<PodArrival> pods = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#") || line.equals(HEADER)) {
        continue;
      }
      pods.add(parse(file, i + 1, line));
    }
    return pods;
  }

  static PodArrival parse(Path file, int lineNumber, String line) {
    String[] f = line.split(",", -1);
    try {
      if (f.length != 6) {
        throw new IllegalArgumentException("expected 6 fields (" + HEADER + "), got " + f.length);
      }
      PodArrival pod = new PodArrival(Double.parseDouble(f[0]), f[1].strip(), f[2].strip(),
          Integer.parseInt(f[3].strip()), Long.parseLong(f[4].strip()), Double.parseDouble(f[5]));
      if (pod.atSeconds() < 0 || pod.durationSeconds() < 0 || pod.cpuMillis() < 0 || pod.memoryMib() < 0) {
        throw new IllegalArgumentException("negative time or request");
      }
      return pod;
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("%s:%d: %s".formatted(file, lineNumber, e.getMessage()));
    }
  }

  public static void write(Path file, List<PodArrival> pods) throws IOException {
    List<String> lines = new ArrayList<>(pods.size() + 1);
    lines.add(HEADER);
    for (PodArrival p : pods) {
      lines.add(String.format(Locale.ROOT, "%.3f,%s,%s,%d,%d,%.3f",
          p.atSeconds(), p.pod(), p.image(), p.cpuMillis(), p.memoryMib(), p.durationSeconds()));
    }
    Files.write(file, lines);
  }
}
