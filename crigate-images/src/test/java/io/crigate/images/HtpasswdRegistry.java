package io.crigate.images;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A second, real docker-registry that demands Basic authentication from an htpasswd file, started
 * on a free loopback port for one test class and stopped by its PID.
 */
final class HtpasswdRegistry implements AutoCloseable {

  final String host;
  private final Process process;

  private HtpasswdRegistry(String host, Process process) {
    this.host = host;
    this.process = process;
  }

  static HtpasswdRegistry start(Path dir, String user, String password) throws IOException, InterruptedException {
    Path htpasswd = dir.resolve("htpasswd");
    run(dir, List.of("htpasswd", "-Bbc", htpasswd.toString(), user, password));
    int port;
    try (var socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path config = dir.resolve("registry.yml");
    Files.writeString(config, """
        version: 0.1
        log:
          level: warn
        storage:
          filesystem:
            rootdirectory: %s
        http:
          addr: 127.0.0.1:%d
        auth:
          htpasswd:
            realm: crigate-test
            path: %s
        """.formatted(dir.resolve("data"), port, htpasswd));
    Process process = new ProcessBuilder("docker-registry", "serve", config.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
    await().atMost(Duration.ofSeconds(20)).until(() -> accepts(port));
    return new HtpasswdRegistry("127.0.0.1:" + port, process);
  }

  /** Copies an image from the open registry into this one with skopeo, logging in as the given user. */
  void copyFrom(String openRegistryImage, String target, String user, String password) throws IOException, InterruptedException {
    run(Path.of("."), List.of("skopeo", "copy", "--quiet", "--src-tls-verify=false", "--dest-tls-verify=false",
        "--dest-creds", user + ":" + password, "docker://" + openRegistryImage, "docker://" + host + "/" + target));
  }

  @Override
  public void close() {
    process.destroy();
  }

  private static boolean accepts(int port) {
    try (var ignored = new Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void run(Path dir, List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException(command.getFirst() + " failed: " + output);
    }
  }
}
