package io.crigate.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
}
