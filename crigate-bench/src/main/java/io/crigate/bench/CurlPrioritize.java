package io.crigate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * prioritize round trips from a client in its own process, as kube-scheduler is one: a single curl
 * posting the same body {@code warmup + iterations} times, one at a time, on one kept-alive HTTP/1.1
 * connection, without {@code Expect: 100-continue} (Go's client sends none). Each transfer's
 * {@code time_total} is one sample.
 */
final class CurlPrioritize {

  private CurlPrioritize() {}

  /** Returns the samples after the warm-up; fails if curl is missing, a call fails or the connection was not kept. */
  static Samples run(String url, byte[] body, int warmup, int iterations, Path workDir) throws IOException, InterruptedException {
    Path request = Files.write(workDir.resolve("prioritize-" + body.length + ".json"), body);
    Path config = workDir.resolve("curl-" + body.length + ".conf");
    Files.writeString(config, ("url = \"" + url + "\"\noutput = \"/dev/null\"\n").repeat(warmup + iterations));
    Process curl = new ProcessBuilder("curl", "--silent", "--show-error", "--fail", "--config", config.toString(),
        "--data-binary", "@" + request, "--header", "Content-Type: application/json", "--header", "Expect:",
        "--write-out", "%{time_total} %{num_connects}\\n").redirectErrorStream(true).start();
    List<String> rows = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    if (curl.waitFor() != 0 || rows.size() != warmup + iterations) {
      throw new IllegalStateException("curl failed: " + String.join("\n", rows.subList(Math.max(0, rows.size() - 5), rows.size())));
    }
    Samples samples = new Samples();
    long connects = 0;
    for (String row : rows.subList(warmup, rows.size())) {
      String[] fields = row.split(" ");
      samples.add(Math.round(Double.parseDouble(fields[0]) * 1e9));
      connects += Long.parseLong(fields[1]);
    }
    if (connects != 0) {
      throw new IllegalStateException(connects + " new connections after the warm-up: the connection was not kept alive");
    }
    return samples;
  }
}
