package io.crigate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Go remotecommand client in src/test/go (spdystream and gorilla/websocket, the libraries
 * Kubernetes uses), built once in GOPATH mode from Debian's packages, which
 * scripts/infra/install-deps.sh installs.
 */
final class GoExecClient {

  /** What the client printed: the command's output and exit code, or why it failed. */
  record Result(int processExit, String stdout, String stderr, int exitCode, String message, String clientError) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path binary;

  private GoExecClient(Path binary) {
    this.binary = binary;
  }

  static GoExecClient build(Path outputDir) throws IOException, InterruptedException {
    return new GoExecClient(GoProgram.build(outputDir, "crigateexec", "github.com/docker/spdystream",
        "golang-github-docker-spdystream-dev"));
  }

  Result run(String url, String protocol, String... flags) {
    List<String> command = new ArrayList<>(List.of(binary.toString(), "-url", url, "-proto", protocol));
    command.addAll(List.of(flags));
    GoProgram.Output output = GoProgram.run(command);
    if (output.exitCode() != 0) {
      return new Result(output.exitCode(), "", "", -1, "", output.stderr());
    }
    try {
      JsonNode result = JSON.readTree(output.stdout());
      return new Result(0, result.path("stdout").asText(), result.path("stderr").asText(),
          result.path("exitCode").asInt(), result.path("message").asText(), output.stderr());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
