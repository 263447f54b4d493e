package io.crigate.nri;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * crigate's plugin mode driven by a Go "runtime": containerd's Go ttrpc with the NRI API generated
 * for Go from crigate's own proto by the protoc-gen-gogottrpc Debian ships. The Go side registers
 * the plugin, configures it, synchronizes it in two parts and asks CreateContainer; the answers
 * come from crigate's adjustment engine.
 */
class GoRuntimeIT {

  static final Path DEBIAN_GOCODE = Path.of("/usr/share/gocode");
  static final Path PROTO = Path.of("../crigate-api/src/main/proto/nri/v1alpha1/api.proto").toAbsolutePath().normalize();

  @TempDir
  Path dir;

  /** The engine plugin: env and a CPU quota at CreateContainer, and what Synchronize brought. */
  private static final class Engine implements AdjustmentPlugin {
    volatile List<String> synced = List.of();

    @Override
    public String name() {
      return "engine";
    }

    @Override
    public Set<LifecycleEvent> events() {
      return Set.of(LifecycleEvent.CREATE_CONTAINER, LifecycleEvent.REMOVE_CONTAINER);
    }

    @Override
    public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
      synced = java.util.stream.Stream.concat(pods.stream().map(PodContext::id), containers.stream().map(ContainerContext::id)).toList();
      return List.of();
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      return PluginResult.adjust(Adjustment.builder().env("FROM_JAVA", pod.name() + "/" + container.name())
          .resources(LinuxResources.builder().cpuQuota(25_000).build()).build());
    }
  }

  @Test
  void aGoRuntimeRegistersConfiguresSynchronizesAndCreatesThroughCrigatesPlugin() throws Exception {
    Path runtime = build();
    Path socket = dir.resolve("nri.sock");
    Process go = new ProcessBuilder(runtime.toString(), socket.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(go.getInputStream(), UTF_8));
    assertThat(out.readLine()).isEqualTo("LISTENING");
    Engine engine = new Engine();
    try (NriPlugin plugin = new NriPlugin(new NriPlugin.Settings("crigate", "42", socket, -1),
        new ChainHandler(new PluginChain(List.of(engine)))).start()) {
      assertThat(go.waitFor(2, TimeUnit.MINUTES)).as("Go runtime finished").isTrue();
      List<String> lines = out.lines().toList();
      assertThat(go.exitValue()).as(String.join("\n", lines)).isZero();
      int mask = (1 << (io.crigate.api.nri.v1alpha1.Event.CREATE_CONTAINER_VALUE - 1))
          | (1 << (io.crigate.api.nri.v1alpha1.Event.REMOVE_CONTAINER_VALUE - 1));
      assertThat(lines).containsExactly(
          "registered 42-crigate nri=v0.12.2",
          "events " + mask,
          "sync-part more=true updates=0",
          "sync-done updates=0",
          "env FROM_JAVA=web/app",
          "cpu.quota 25000");
      assertThat(engine.synced).containsExactly("pod-0", "ctr-0");
    } finally {
      go.destroy();
    }
  }

  /**
   * Builds the generator from Debian's ttrpc sources, generates the NRI API for Go from
   * crigate-api's proto, and builds {@code src/test/resources/gopath/src/nriruntime} against it.
   */
  private static synchronized Path build() throws IOException, InterruptedException {
    Path out = Path.of("target/go-nri").toAbsolutePath();
    Path binary = out.resolve("nriruntime");
    if (Files.isExecutable(binary)) {
      return binary;
    }
    if (!Files.isDirectory(DEBIAN_GOCODE.resolve("src/github.com/containerd/ttrpc/cmd/protoc-gen-gogottrpc"))) {
      throw new IllegalStateException("containerd's Go ttrpc is missing: apt-get install golang-go protobuf-compiler "
          + "golang-github-containerd-ttrpc-dev golang-gogoprotobuf-dev (scripts/infra/install-deps.sh)");
    }
    Path gopath = out.resolve("gopath");
    Path api = Files.createDirectories(gopath.resolve("src/nriapi"));
    Path generator = out.resolve("protoc-gen-gogottrpc");
    go(out, "build", "-o", generator.toString(), "github.com/containerd/ttrpc/cmd/protoc-gen-gogottrpc");
    run(out, List.of("protoc", "--plugin=protoc-gen-gogottrpc=" + generator, "-I", PROTO.getParent().toString(),
        "--gogottrpc_out=plugins=ttrpc:" + api, PROTO.toString()));
    go(out, "build", "-o", binary.toString(), "nriruntime");
    return binary;
  }

  private static void go(Path out, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("go"));
    command.addAll(List.of(args));
    run(out, command);
  }

  private static void run(Path out, List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("GO111MODULE", "off");
    pb.environment().put("GOPATH", out.resolve("gopath") + ":" + Path.of("src/test/resources/gopath").toAbsolutePath()
        + ":" + DEBIAN_GOCODE);
    pb.environment().put("GOCACHE", out.resolve("cache").toString());
    Process p = pb.start();
    String log = new String(p.getInputStream().readAllBytes(), UTF_8);
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + log);
    }
  }
}
