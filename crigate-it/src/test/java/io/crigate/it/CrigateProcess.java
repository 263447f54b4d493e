package io.crigate.it;

import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.VersionRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code bin/crigate serve} process with its own socket and state directory, so a test can
 * kill it with SIGKILL and start it again on the same state, exactly as a node crash would.
 */
final class CrigateProcess implements AutoCloseable {

  private static final Duration STARTUP = Duration.ofSeconds(90);
  /** Stands for the work directory in a configuration, which is only known once the test class starts. */
  static final String WORK_DIR = "${WORK_DIR}";

  private final Path repository;
  private final Path workDir;
  private final List<String> arguments;
  private final Map<String, String> environment;
  private final Path log;
  private Process process;
  private CriConnection cri;

  private CrigateProcess(Path repository, Path workDir, List<String> arguments, Map<String, String> environment) {
    this.repository = repository;
    this.workDir = workDir;
    this.arguments = List.copyOf(arguments);
    this.environment = Map.copyOf(environment);
    this.log = workDir.resolve("crigate.log");
  }

  /**
   * Starts crigate routing each {@code handler:endpoint} of {@code backends}, with {@code configYaml},
   * when not empty, as its {@code --config} file ({@link #WORK_DIR} replaced), and waits until it serves.
   */
  static CrigateProcess start(Path workDir, List<String> backends, String configYaml) {
    List<String> arguments = new ArrayList<>(List.of("--socket", workDir.resolve("crigate.sock").toString(),
        "--state-dir", workDir.resolve("state").toString(), "--remote-runtime-endpoints", String.join(",", backends)));
    if (!configYaml.isEmpty()) {
      try {
        Files.createDirectories(workDir);
        Path config = Files.writeString(workDir.resolve("crigate.yaml"), configYaml.replace(WORK_DIR, workDir.toString()));
        arguments.addAll(List.of("--config", config.toString()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return serve(workDir, Map.of(), arguments);
  }

  /**
   * Starts {@code crigate serve ARGUMENTS} as written, with {@code environment} added to this
   * process's, and waits until it serves: for the seed systems' own command lines, which must put
   * the socket at {@link #socket()} in their own words.
   */
  static CrigateProcess serve(Path workDir, Map<String, String> environment, List<String> arguments) {
    CrigateProcess crigate = new CrigateProcess(Infra.repositoryRoot(), workDir, arguments, environment);
    crigate.launch();
    return crigate;
  }

  /** crigate's log so far (standard output and error). */
  Path log() {
    return log;
  }

  Path socket() {
    return workDir.resolve("crigate.sock");
  }

  Path stateDir() {
    return workDir.resolve("state");
  }

  /** The client a kubelet would hold; valid across restarts, as the kubelet's is. */
  CriConnection cri() {
    return cri;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no flush, no goodbye. */
  void killHard() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("crigate survived SIGKILL");
    }
  }

  /** Starts crigate again on the same socket and state directory. */
  void restart() {
    if (process.isAlive()) {
      throw new IllegalStateException("crigate still runs; kill it first");
    }
    launch();
  }

  /** The end of crigate's log, for failure messages. */
  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void launch() {
    try {
      Files.createDirectories(stateDir());
      List<String> command = new ArrayList<>(List.of(repository.resolve("bin/crigate").toString(), "serve"));
      command.addAll(arguments);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(environment);
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + repository.resolve("bin/crigate"), e);
    }
    if (cri == null) {
      cri = CriConnection.open("unix://" + socket());
    }
    await("crigate serving on " + socket()).atMost(STARTUP).pollInterval(Duration.ofMillis(100))
        .failFast("crigate exited; its log ends:\n" + logTail(), () -> !process.isAlive())
        .ignoreExceptions()
        .until(() -> cri.runtime(Duration.ofSeconds(2)).version(VersionRequest.getDefaultInstance()) != null);
  }

  /** SIGTERM, then SIGKILL if crigate does not stop within 15 s. */
  @Override
  public void close() throws InterruptedException {
    if (cri != null) {
      cri.close();
    }
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        killHard();
      }
    }
  }
}
