package io.crigate.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Go NRI peers under {@code crigate-nri/src/test/resources/gopath} ({@code nriruntime}, a runtime
 * side; {@code nriplugin}, a third-party plugin), built in GOPATH mode from Debian's packages:
 * containerd's Go ttrpc and the NRI API generated for Go from crigate-api's own proto by the
 * {@code protoc-gen-gogottrpc} in that package's sources. containerd/nri itself is not packaged.
 *
 * @param repository the crigate checkout
 * @param out where the generator, the generated API and the binaries go (a module's target dir)
 */
public record GoNriPeers(Path repository, Path out) {

  private static final Path DEBIAN_GOCODE = Path.of("/usr/share/gocode");

  /** The peers of the checkout above the working directory, built into {@code out}. */
  public static GoNriPeers in(Path out) {
    return new GoNriPeers(repositoryRoot(), out.toAbsolutePath());
  }

  /**
   * Builds {@code program} (a package under the peers' GOPATH); Go's build cache in the output
   * directory makes a rebuild of unchanged sources quick.
   *
   * @return the executable
   */
  public Path build(String program) throws IOException, InterruptedException {
    Path binary = out.resolve(program);
    if (!Files.isDirectory(DEBIAN_GOCODE.resolve("src/github.com/containerd/ttrpc/cmd/protoc-gen-gogottrpc"))) {
      throw new IllegalStateException("containerd's Go ttrpc is missing: apt-get install golang-go protobuf-compiler "
          + "golang-github-containerd-ttrpc-dev golang-gogoprotobuf-dev (scripts/infra/install-deps.sh)");
    }
    generateApi();
    run(List.of("go", "build", "-o", binary.toString(), program));
    return binary;
  }

  private void generateApi() throws IOException, InterruptedException {
    Path api = Files.createDirectories(out.resolve("gopath/src/nriapi"));
    Path proto = repository.resolve("crigate-api/src/main/proto/nri/v1alpha1/api.proto");
    Path generator = out.resolve("protoc-gen-gogottrpc");
    run(List.of("go", "build", "-o", generator.toString(), "github.com/containerd/ttrpc/cmd/protoc-gen-gogottrpc"));
    run(List.of("protoc", "--plugin=protoc-gen-gogottrpc=" + generator, "-I", proto.getParent().toString(),
        "--gogottrpc_out=plugins=ttrpc:" + api, proto.toString()));
  }

  private void run(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
    pb.environment().put("GO111MODULE", "off");
    pb.environment().put("GOFLAGS", "");
    pb.environment().put("GOPATH", out.resolve("gopath") + ":"
        + repository.resolve("crigate-nri/src/test/resources/gopath") + ":" + DEBIAN_GOCODE);
    pb.environment().put("GOCACHE", out.resolve("cache").toString());
    Process p = pb.start();
    String log = new String(p.getInputStream().readAllBytes(), UTF_8);
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + log);
    }
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("crigate-nri/src/test/resources/gopath"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no crigate checkout above " + Path.of("").toAbsolutePath());
  }
}
