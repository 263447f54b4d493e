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
 * work; what this adds, no proxy on this machine can avoid.
 */
final class ByteRelay implements AutoCloseable {

  private static final Duration START_LIMIT = Duration.ofSeconds(10);

  private final Process socat;
  private final CriClient client;

  private ByteRelay(Process socat, CriClient client) {
    this.socat = socat;
    this.client = client;
  }

  /**
   * Starts {@code socat UNIX-LISTEN:<workDir>/relay.sock,fork UNIX-CONNECT:<runtime>} and returns once
   * a Version call through it succeeds.
   *
   * @throws IllegalStateException naming socat when it is not installed or does not relay
   */
  static ByteRelay start(Path workDir, String runtimeEndpoint) throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path socket = workDir.resolve("relay.sock");
    Path runtime = UnixSocketChannel.socketPath(runtimeEndpoint);
    Process socat;
    try {
      socat = new ProcessBuilder(List.of("socat", "UNIX-LISTEN:" + socket + ",fork,unlink-early", "UNIX-CONNECT:" + runtime))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("socat.log").toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start socat for the relay baseline (install it: scripts/infra/install-deps.sh)", e);
    }
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (!Files.exists(socket)) {
      if (!socat.isAlive() || System.nanoTime() > deadline) {
        socat.destroyForcibly();
        throw new IllegalStateException("socat did not listen on " + socket + "; see " + workDir.resolve("socat.log"));
      }
      Thread.sleep(5);
    }
    CriClient client = CriClient.connect(UnixSocketChannel.endpoint(socket));
    try {
      client.runtime(START_LIMIT).version(VersionRequest.getDefaultInstance());
    } catch (RuntimeException e) {
      client.close();
      socat.destroyForcibly();
      throw new IllegalStateException("nothing answers through socat on " + socket, e);
    }
    return new ByteRelay(socat, client);
  }

  CriClient client() {
    return client;
  }

  /** CPU time of socat and the child it forked for each connection. */
  long cpuNanos() throws IOException {
    long total = 0;
    for (ProcessHandle process : Stream.concat(Stream.of(socat.toHandle()), socat.descendants()).toList()) {
      try {
        total += ProcessCpu.nanos(process.pid());
      } catch (NoSuchFileException exited) {
        // A connection's child that ended between listing and reading.
      }
    }
    return total;
  }

  @Override
  public void close() throws InterruptedException {
    client.close();
    socat.descendants().forEach(ProcessHandle::destroy);
    socat.destroy();
    if (!socat.waitFor(5, TimeUnit.SECONDS)) {
      socat.destroyForcibly().waitFor();
    }
  }
}
