package io.crigate.ttrpc;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * containerd's Go ttrpc, as a process: {@code src/test/resources/gopath/src/ttrpcpeer} built in
 * GOPATH mode against Debian's packaged sources under /usr/share/gocode.
 */
final class GoPeer {

  static final Path SOURCES = Path.of("src/test/resources/gopath").toAbsolutePath();
  static final Path DEBIAN_GOCODE = Path.of("/usr/share/gocode");

  private GoPeer() {
  }

  /** Builds the peer into {@code target/go-peer} once per build; fails naming what is missing. */
  static synchronized Path build() throws IOException, InterruptedException {
    Path out = Path.of("target/go-peer").toAbsolutePath();
    Path binary = out.resolve("ttrpcpeer");
    if (Files.isExecutable(binary)) {
      return binary;
    }
    if (!Files.isDirectory(DEBIAN_GOCODE.resolve("src/github.com/containerd/ttrpc"))) {
      throw new IllegalStateException("containerd's Go ttrpc is missing: apt-get install golang-go "
          + "golang-github-containerd-ttrpc-dev golang-gogoprotobuf-dev (scripts/infra/install-deps.sh)");
    }
    Files.createDirectories(out);
    ProcessBuilder pb = new ProcessBuilder("go", "build", "-o", binary.toString(), "ttrpcpeer")
        .redirectErrorStream(true);
    pb.environment().put("GO111MODULE", "off");
    pb.environment().put("GOPATH", out.resolve("gopath") + ":" + SOURCES + ":" + DEBIAN_GOCODE);
    pb.environment().put("GOCACHE", out.resolve("cache").toString());
    Process p = pb.start();
    String log = new String(p.getInputStream().readAllBytes(), UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("go build of the ttrpc peer failed:\n" + log);
    }
    return binary;
  }

  /** Starts {@code ttrpcpeer server SOCKET} and returns once it serves; closing stdin stops it. */
  static Process serve(Path socket) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(build().toString(), "server", socket.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String first = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8)).readLine();
    if (!"READY".equals(first)) {
      p.destroy();
      throw new IllegalStateException("Go ttrpc server did not start: " + first);
    }
    return p;
  }

  /** Runs {@code ttrpcpeer MODE SOCKET ARGS...}; returns its stdout, failing with its output otherwise. */
  static String run(String mode, Path socket, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of(build().toString(), mode, socket.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new AssertionError("ttrpcpeer " + mode + " failed:\n" + out);
    }
    return out;
  }
}
