package io.crigate.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Builds a Go program from crigate-it/src/test/go in GOPATH mode against the Go libraries Debian
 * packages under /usr/share/gocode, which scripts/infra/install-deps.sh installs.
 */
final class GoProgram {

  private static final Path GOPATH_SYSTEM = Path.of("/usr/share/gocode");

  private GoProgram() {}

  /**
   * Returns the built binary of package {@code name}; {@code library} is a source directory under
   * the system GOPATH the program needs, named with {@code debianPackage} when it is missing.
   */
  static Path build(Path outputDir, String name, String library, String debianPackage)
      throws IOException, InterruptedException {
    if (!Files.isDirectory(GOPATH_SYSTEM.resolve("src").resolve(library))) {
      throw new IllegalStateException(debianPackage + " is not installed: run scripts/infra/install-deps.sh");
    }
    Path source = Infra.repositoryRoot().resolve("crigate-it/src/test/go");
    Files.createDirectories(outputDir);
    Path binary = outputDir.resolve(name).toAbsolutePath();
    ProcessBuilder build = new ProcessBuilder("go", "build", "-o", binary.toString(), name).redirectErrorStream(true);
    Map<String, String> env = build.environment();
    env.put("GO111MODULE", "off");
    env.put("GOPATH", source + ":" + GOPATH_SYSTEM);
    env.put("GOCACHE", outputDir.resolve("go-cache").toAbsolutePath().toString());
    env.put("GOFLAGS", "");
    Process process = build.start();
    String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
      throw new IllegalStateException("go build of " + name + " failed:\n" + log);
    }
    return binary;
  }

  /** What a run of a built client printed: its exit code, stdout, and stderr stripped. */
  record Output(int exitCode, String stdout, String stderr) {}

  /** Runs {@code command} to its end (at most two minutes), reading both outputs at once. */
  static Output run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).start();
      CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> text(process.getErrorStream()),
          Thread::startVirtualThread);
      String out = text(process.getInputStream());
      String err = stderr.join();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("did not end: " + command);
      }
      return new Output(process.exitValue(), out, err.strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String text(InputStream stream) {
    try (stream) {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
