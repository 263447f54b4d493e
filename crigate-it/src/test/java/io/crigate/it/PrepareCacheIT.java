package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.VersionRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/crigate prepare-cache}, the install step: it must leave serve's AOT cache in place,
 * silently, so that the very first start of serve after it maps the cache. Runs on a copy of the
 * build, since the repository's own cache directory is shared with every other test's crigate.
 */
class PrepareCacheIT {

  static final Infra infra = Infra.fromEnvironment();

  @Test
  void theInstallStepLeavesACacheTheFirstStartMaps(@TempDir Path dir) throws Exception {
    Path install = copyOfTheBuild(dir.resolve("install"));
    Path cacheDir = install.resolve("crigate-cli/target/jvm-cache");
    leaveAnOldAssembledCache(cacheDir); // prepare-cache clears it
    ProcessBuilder prepare = new ProcessBuilder(install.resolve("bin/crigate").toString(), "prepare-cache")
        .redirectOutput(dir.resolve("prepare.out").toFile()).redirectError(dir.resolve("prepare.err").toFile());
    // The JVM's own "Picked up JAVA_TOOL_OPTIONS" line must not reach the terminal either.
    prepare.environment().put("JAVA_TOOL_OPTIONS", "-Dcrigate.test.marker=1");
    Process preparing = prepare.start();
    assertThat(preparing.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(preparing.exitValue()).as(Files.readString(dir.resolve("prepare.err"))).isZero();
    assertThat(Files.readString(dir.resolve("prepare.out"))).isEmpty();
    assertThat(Files.readString(dir.resolve("prepare.err"))).isEmpty();
    try (Stream<Path> files = Files.list(cacheDir)) {
      // the cache and the JDK it was made by; no recording or half-assembled cache left behind
      assertThat(files.map(file -> file.getFileName().toString()).sorted().toList()).containsExactly("jdk", "serve.aot");
    }

    leaveAnOldAssembledCache(cacheDir); // the start must not adopt it over the newer prepared cache
    // -XX:AOTMode=on: the JVM refuses to start unless it maps a usable cache, so serving proves the first start used it.
    // The JVM's account of the cache it mapped: a cache whose module options differ from the start's
    // is still mapped, but without its module graph and its linked classes, and starts ~0.3 s slower.
    Path aotLog = dir.resolve("aot.log");
    String serveLog = serveUntilItAnswers(install, dir, Map.of("CRIGATE_JAVA_OPTS", "-XX:AOTMode=on -Xlog:aot=info:file=" + aotLog));
    assertThat(Files.readString(aotLog)).as(serveLog).contains("Using AOT-linked classes: true").doesNotContain("Mismatched values");
    try (Stream<Path> files = Files.list(cacheDir)) {
      // the start used the cache, so it recorded nothing of its own
      assertThat(files.map(file -> file.getFileName().toString()).sorted().toList()).containsExactly("jdk", "serve.aot");
    }

    // With its cache in place the launcher runs no program but bash on the way to the JVM (each
    // costs ~10 ms of a start here): with only bash on PATH, any other would stop it.
    Path onlyBash = Files.createDirectories(dir.resolve("only-bash"));
    Files.createSymbolicLink(onlyBash.resolve("bash"), Path.of("/bin/bash"));
    serveUntilItAnswers(install, dir, Map.of("PATH", onlyBash.toString(), "CRIGATE_JAVA_OPTS", "-XX:AOTMode=on"));
  }

  /** Starts the install's serve with {@code environment} added, waits for its answer, stops it; returns its output. */
  private static String serveUntilItAnswers(Path install, Path dir, Map<String, String> environment) throws Exception {
    Path socket = dir.resolve("crigate.sock");
    Path log = Files.createTempFile(dir, "serve", ".log");
    ProcessBuilder serve = new ProcessBuilder(install.resolve("bin/crigate").toString(), "serve", "--socket",
        socket.toString(), "--state-dir", dir.resolve("state").toString(),
        "--remote-runtime-endpoints", "default:" + infra.containerdA())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    serve.environment().putAll(environment);
    Process crigate = serve.start();
    try {
      Awaitility.await("serve answers").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
          .until(() -> !crigate.isAlive() || answers(socket));
      assertThat(crigate.isAlive()).as("serve with " + environment + ":\n" + Files.readString(log)).isTrue();
      return Files.readString(log);
    } finally {
      crigate.destroy();
      assertThat(crigate.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * What the lazy path leaves when the jars are rebuilt while a start assembles a cache: a finished
   * cache of the old jars, named after its writer, which is gone.
   */
  private static void leaveAnOldAssembledCache(Path cacheDir) throws IOException {
    Path leftover = Files.write(Files.createDirectories(cacheDir).resolve("serve.aot.999999"), new byte[] {1});
    Files.setLastModifiedTime(leftover, FileTime.fromMillis(0));
  }

  private static boolean answers(Path socket) {
    if (!Files.exists(socket)) {
      return false;
    }
    try (CriConnection cri = CriConnection.open("unix://" + socket)) {
      return !cri.runtime().withDeadlineAfter(5, TimeUnit.SECONDS).version(VersionRequest.getDefaultInstance()).getRuntimeName().isEmpty();
    } catch (RuntimeException notYet) {
      return false;
    }
  }

  /** bin/crigate, the script it sources and the built jars, laid out as in the repository (as an install is). */
  private static Path copyOfTheBuild(Path install) throws IOException {
    Path repository = Infra.repositoryRoot();
    for (String file : List.of("bin/crigate", "scripts/lib/java.sh", "crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar")) {
      Files.createDirectories(install.resolve(file).getParent());
      Files.copy(repository.resolve(file), install.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
    }
    Path lib = repository.resolve("crigate-cli/target/lib");
    Files.createDirectories(install.resolve("crigate-cli/target/lib"));
    try (Stream<Path> jars = Files.list(lib)) {
      for (Path jar : jars.toList()) {
        Files.copy(jar, install.resolve("crigate-cli/target/lib").resolve(jar.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    return install;
  }
}
