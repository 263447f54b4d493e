package io.crigate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * prioritize round trips from a client in its own process, as kube-scheduler is one: a single curl
 * posting the same body {@link #OPENING_CALLS} + {@code iterations} times, one at a time, on one
 * kept-alive HTTP/1.1 connection, without {@code Expect: 100-continue} (Go's client sends none). Each transfer's
 * {@code time_total} is one sample.
 *
 * <p>A new connection's first calls are slower than its later ones, whatever serves them: with a
 * 217 KB request and a 330 KB answer, the median by position on 30 new connections fell from 3.4 ms
 * (second call) through 2.5, 2.2, 2.0 to ~1.5 ms by the tenth (docs/benchmarks.md). A client that
 * keeps its connection, as kube-scheduler's does while it schedules, sees the later figure; the
 * series' samples are those, and the opening calls are kept apart so that they are reported too.
 */
final class CurlPrioritize {

  private CurlPrioritize() {}

  /** The calls a new connection makes before its samples count as a kept connection's; the first one also connects. */
  static final int OPENING_CALLS = 10;

  /**
   * One curl run: the calls after the connection's opening ones, and the opening ones but the first
   * (which connects); both in the order made.
   */
  record Transfers(Samples kept, Samples opening) {}

  /** {@link #OPENING_CALLS} calls, then {@code iterations} calls that count; fails if curl is missing, a call fails or the connection was not kept. */
  static Transfers run(String url, byte[] body, int iterations, Path workDir) throws IOException, InterruptedException {
    Path request = Files.write(workDir.resolve("prioritize-" + body.length + ".json"), body);
    Path config = workDir.resolve("curl-" + body.length + ".conf");
    int calls = OPENING_CALLS + iterations;
    Files.writeString(config, ("url = \"" + url + "\"\noutput = \"/dev/null\"\n").repeat(calls));
    Process curl = new ProcessBuilder("curl", "--silent", "--show-error", "--fail", "--config", config.toString(),
        "--data-binary", "@" + request, "--header", "Content-Type: application/json", "--header", "Expect:",
        "--write-out", "%{time_total} %{num_connects}\\n").redirectErrorStream(true).start();
    List<String> rows = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    if (curl.waitFor() != 0 || rows.size() != calls) {
      throw new IllegalStateException("curl failed: " + String.join("\n", rows.subList(Math.max(0, rows.size() - 5), rows.size())));
    }
    Samples opening = new Samples();
    Samples kept = new Samples();
    long connects = 0;
    for (int i = 1; i < rows.size(); i++) {
      String[] fields = rows.get(i).split(" ");
      (i < OPENING_CALLS ? opening : kept).add(Math.round(Double.parseDouble(fields[0]) * 1e9));
      connects += Long.parseLong(fields[1]);
    }
    if (connects != 0) {
      throw new IllegalStateException(connects + " new connections after the first call: the connection was not kept alive");
    }
    return new Transfers(kept, opening);
  }
}
