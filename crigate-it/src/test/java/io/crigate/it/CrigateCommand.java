package io.crigate.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code bin/crigate} command run beside the tests' {@code serve} (an {@code nri-plugin}, a
 * {@code hooks-reconciler}), its output, standard error included, going to {@code log}.
 */
record CrigateCommand(Process process, Path log) {

  static CrigateCommand start(Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Infra.repositoryRoot().resolve("bin/crigate").toString()));
    command.addAll(List.of(args));
    return new CrigateCommand(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start(), log);
  }

  /**
   * {@code crigate nri-plugin} with {@code config} (its file, log and state in {@code dir}) on the
   * NRI socket {@code host} serves, once {@code host} has it in service.
   */
  static CrigateCommand nriPlugin(Path dir, Path socket, String config, CrigateExtension host) throws IOException {
    Path file = Files.writeString(dir.resolve("nri-plugin.yaml"), config);
    CrigateCommand plugin = start(dir.resolve("nri-plugin.log"), "nri-plugin", "--config", file.toString(),
        "--socket", socket.toString(), "--state-dir", dir.resolve("nri-state").toString());
    await("crigate hosting the hooks' NRI plugin").atMost(Duration.ofSeconds(90))
        .failFast("nri-plugin exited", () -> !plugin.isAlive())
        .until(() -> host.process().logTail().contains("NRI plugin 50-crigate"));
    return plugin;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Everything it wrote so far; empty before it wrote anything. */
  String output() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** The last 30 lines it wrote, for a failure message. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** TERM, and KILL if it has not ended 15 s later. */
  void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
