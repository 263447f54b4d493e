package io.crigate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

  static String text(InputStream stream) {
    try (stream) {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Result run(String url, String protocol, String... flags) {
    List<String> command = new ArrayList<>(List.of(binary.toString(), "-url", url, "-proto", protocol));
    command.addAll(List.of(flags));
    try {
      Process process = new ProcessBuilder(command).start();
      CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> text(process.getErrorStream()),
          Thread::startVirtualThread);
      String out = text(process.getInputStream());
      String err = stderr.join();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("crigateexec did not end: " + command);
      }
      if (process.exitValue() != 0) {
        return new Result(process.exitValue(), "", "", -1, "", err.strip());
      }
      JsonNode result = JSON.readTree(out);
      return new Result(0, result.path("stdout").asText(), result.path("stderr").asText(),
          result.path("exitCode").asInt(), result.path("message").asText(), err.strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
