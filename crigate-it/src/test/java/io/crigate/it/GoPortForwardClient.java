package io.crigate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Go port-forward client in src/test/go, speaking portforward.k8s.io over spdystream as the
 * kubelet's clients do, built once in GOPATH mode from Debian's packages, which
 * scripts/infra/install-deps.sh installs.
 */
final class GoPortForwardClient {

  /**
   * One forwarded connection: what came back on its data and error streams, and what went wrong
   * on the client's side (a stream refused or reset, the connection lost, a timeout).
   */
  record Connection(int port, String requestId, String data, String error, String clientError) {}

  /** The connections in the order of -ports, or, when the process failed, why (its stderr). */
  record Result(int processExit, List<Connection> connections, String clientError) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path binary;

  private GoPortForwardClient(Path binary) {
    this.binary = binary;
  }

  static GoPortForwardClient build(Path outputDir) throws IOException, InterruptedException {
    return new GoPortForwardClient(GoProgram.build(outputDir, "crigateportforward", "github.com/docker/spdystream",
        "golang-github-docker-spdystream-dev"));
  }

  /** Runs the client against {@code url}; {@code flags} are its own, e.g. "-ports", "8080,8080", "-half-close". */
  Result run(String url, String... flags) {
    List<String> command = new ArrayList<>(List.of(binary.toString(), "-url", url));
    command.addAll(List.of(flags));
    try {
      Process process = new ProcessBuilder(command).start();
      CompletableFuture<String> stderr = CompletableFuture.supplyAsync(
          () -> GoExecClient.text(process.getErrorStream()), Thread::startVirtualThread);
      String out = GoExecClient.text(process.getInputStream());
      String err = stderr.join();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("crigateportforward did not end: " + command);
      }
      if (process.exitValue() != 0) {
        return new Result(process.exitValue(), List.of(), err.strip());
      }
      List<Connection> connections = new ArrayList<>();
      for (JsonNode connection : JSON.readTree(out).path("connections")) {
        connections.add(new Connection(connection.path("port").asInt(), connection.path("requestID").asText(),
            connection.path("data").asText(), connection.path("error").asText(),
            connection.path("clientError").asText()));
      }
      return new Result(0, List.copyOf(connections), err.strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
