package io.crigate.bench;

import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.cli.ctl.CriClient;
import io.crigate.transport.UnixSocketChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The floor of any userspace hop on this machine: socat copying bytes between a unix socket and the
 * runtime's, with no HTTP/2 or protobuf in between. Whatever a proxy adds beyond this is its own
 * work; what this adds, no proxy on this machine can avoid. The same for a hop in a JVM
 * ({@link HopRelay}): bytes only, or with every header block decoded and re-encoded.
 */
final class ByteRelay implements AutoCloseable {

  private static final Duration START_LIMIT = Duration.ofSeconds(10);

  private final Process process;
  private final CriClient client;

  private ByteRelay(Process process, CriClient client) {
    this.process = process;
    this.client = client;
  }

  /**
   * Starts {@code socat UNIX-LISTEN:<workDir>/relay.sock,fork UNIX-CONNECT:<runtime>} and returns once
   * a Version call through it succeeds.
   *
   * @throws IllegalStateException naming socat when it is not installed or does not relay
   */
  static ByteRelay start(Path workDir, String runtimeEndpoint) throws IOException, InterruptedException {
    Path socket = workDir.resolve("relay.sock");
    Path runtime = UnixSocketChannel.socketPath(runtimeEndpoint);
    return start(workDir, socket, "socat (install it: scripts/infra/install-deps.sh)",
        List.of("socat", "UNIX-LISTEN:" + socket + ",fork,unlink-early", "UNIX-CONNECT:" + runtime));
  }

  /**
   * Starts {@link HopRelay} in {@code mode} ({@code bytes} or {@code hpack}) in a JVM of its own, with
   * this JVM's class path and the heap and GC flags crigate's launcher uses, and returns once a
   * Version call through it succeeds.
   */
  static ByteRelay startJava(Path workDir, String runtimeEndpoint, String mode) throws IOException, InterruptedException {
    Path socket = workDir.resolve(mode + ".sock");
    Files.deleteIfExists(socket);
    String java = ProcessHandle.current().info().command().orElse("java");
    return start(workDir, socket, "the Java " + mode + " relay",
        List.of(java, "-XX:+UseSerialGC", "-Xms16m", "-Xmn12m", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
            HopRelay.class.getName(), mode, socket.toString(), UnixSocketChannel.socketPath(runtimeEndpoint).toString()));
  }

  private static ByteRelay start(Path workDir, Path socket, String what, List<String> command)
      throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path log = workDir.resolve(socket.getFileName() + ".log");
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + what, e);
    }
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (!Files.exists(socket)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(what + " did not listen on " + socket + "; see " + log);
      }
      Thread.sleep(5);
    }
    CriClient client = CriClient.connect(UnixSocketChannel.endpoint(socket));
    try {
      client.runtime(START_LIMIT).version(VersionRequest.getDefaultInstance());
    } catch (RuntimeException e) {
      client.close();
      process.destroyForcibly();
      throw new IllegalStateException("nothing answers through " + what + " on " + socket, e);
    }
    return new ByteRelay(process, client);
  }

  CriClient client() {
    return client;
  }

  /** CPU time of the relay and any child it forked for a connection (socat does). */
  long cpuNanos() throws IOException {
    long total = 0;
    for (ProcessHandle each : Stream.concat(Stream.of(process.toHandle()), process.descendants()).toList()) {
      try {
        total += ProcessCpu.nanos(each.pid());
      } catch (NoSuchFileException exited) {
        // A connection's child that ended between listing and reading.
      }
    }
    return total;
  }

  /** CPU time of a Java relay's event loop thread; 0 for socat, which has none of that name. */
  long ioThreadCpuNanos() throws IOException {
    return ProcessCpu.nanos(process.pid(), "hop-");
  }

  @Override
  public void close() throws InterruptedException {
    client.close();
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
