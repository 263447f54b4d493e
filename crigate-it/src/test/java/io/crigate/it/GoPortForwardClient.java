package io.crigate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
    GoProgram.Output output = GoProgram.run(command);
    if (output.exitCode() != 0) {
      return new Result(output.exitCode(), List.of(), output.stderr());
    }
    try {
      List<Connection> connections = new ArrayList<>();
      for (JsonNode connection : JSON.readTree(output.stdout()).path("connections")) {
        connections.add(new Connection(connection.path("port").asInt(), connection.path("requestID").asText(),
            connection.path("data").asText(), connection.path("error").asText(),
            connection.path("clientError").asText()));
      }
      return new Result(0, List.copyOf(connections), output.stderr());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
