package io.crigate.bench;

import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.cli.ctl.CriClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A {@code bin/crigate serve} process started the way an admin starts it, measured from outside. */
final class CrigateUnderBench implements AutoCloseable {

  private static final Duration STARTUP_LIMIT = Duration.ofSeconds(180);

  private final Process process;
  private final CriClient client;
  private final Duration startToServing;

  private CrigateUnderBench(Process process, CriClient client, Duration startToServing) {
    this.process = process;
    this.client = client;
    this.startToServing = startToServing;
  }

  /**
   * Starts crigate with one {@code default} backend and returns once a Version call through its
   * socket succeeds; the time until then is what a kubelet waits after a restart. {@code config},
   * when not null, is passed as {@code --config}.
   */
  static CrigateUnderBench start(Path repository, Path workDir, String runtimeEndpoint, Path config)
      throws IOException {
    return start(repository, workDir, runtimeEndpoint, config, Map.of());
  }

  /** As above, with {@code environment} added to crigate's (e.g. {@code KUBECONFIG} for the API server it publishes to). */
  static CrigateUnderBench start(Path repository, Path workDir, String runtimeEndpoint, Path config,
      Map<String, String> environment) throws IOException {
    return start(repository, workDir, runtimeEndpoint, config, environment, STARTUP_LIMIT);
  }

  /** As above, giving up after {@code startupLimit} instead of the default 3 minutes. */
  static CrigateUnderBench start(Path repository, Path workDir, String runtimeEndpoint, Path config,
      Map<String, String> environment, Duration startupLimit) throws IOException {
    Files.createDirectories(workDir);
    Path socket = workDir.resolve("crigate.sock");
    List<String> command = new ArrayList<>(List.of(repository.resolve("bin/crigate").toString(), "serve",
        "--socket", socket.toString(),
        "--state-dir", workDir.resolve("state").toString(),
        "--remote-runtime-endpoints", "default:" + runtimeEndpoint));
    if (config != null) {
      command.addAll(List.of("--config", config.toAbsolutePath().toString()));
    }
    long launched = System.nanoTime();
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    Process process = builder
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("crigate.log").toFile()))
        .start();
    long deadline = launched + startupLimit.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("crigate exited during start; see " + workDir.resolve("crigate.log"));
      }
      if (!Files.exists(socket)) {
        sleepBriefly();
        continue;
      }
      // A fresh client per attempt: a channel that failed to connect would wait out grpc's
      // reconnect backoff (a second or more) and the measurement would show that, not crigate.
      CriClient client = CriClient.connect("unix://" + socket);
      try {
        client.runtime(Duration.ofSeconds(1)).version(VersionRequest.getDefaultInstance());
        return new CrigateUnderBench(process, client, Duration.ofNanos(System.nanoTime() - launched));
      } catch (RuntimeException notYet) {
        client.close();
        if (System.nanoTime() > deadline) {
          process.destroyForcibly();
          throw new IllegalStateException("crigate did not serve within " + startupLimit, notYet);
        }
      }
      sleepBriefly();
    }
  }

  CriClient client() {
    return client;
  }

  Duration startToServing() {
    return startToServing;
  }

  /** Resident set size of the crigate JVM, from the kernel's own accounting. */
  long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    throw new IOException("no VmRSS for pid " + process.pid());
  }

  /** CPU time the crigate JVM has used, all its threads (JIT and GC included). */
  /** CPU per {@link ProcessCpu.JvmThreads} group, in its order. */
  long[] cpuNanosByThreadGroup() throws IOException {
    return ProcessCpu.nanosByThreadGroup(process.pid());
  }

  long cpuNanos() throws IOException {
    return ProcessCpu.nanos(process.pid());
  }

  /** CPU time of crigate's I/O thread ({@code crigate-io-1-1}), where a relayed call is read, routed and written. */
  long ioThreadCpuNanos() throws IOException {
    return ProcessCpu.nanos(process.pid(), "crigate-io-");
  }

  @Override
  public void close() throws InterruptedException {
    client.close();
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for crigate", e);
    }
  }
}
