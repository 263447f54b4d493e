package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.InitContext;
import io.crigate.testsupport.InMemoryBackend;
import io.crigate.transport.UnixSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts whole gateways on real unix sockets, with in-memory backends. */
class GatewayTest {

  @TempDir
  Path dir;

  private final List<InitContext> contexts = new CopyOnWriteArrayList<>();
  private final BackendFactory memory = new BackendFactory() {
    @Override
    public String type() {
      return "memory";
    }

    @Override
    public Backend create(InitContext context) {
      contexts.add(context);
      return new InMemoryBackend(context.name());
    }
  };

  @Test
  void servesCriThroughTheDumpAndGivesEachBackendItsOwnStateDir() throws Exception {
    GatewayConfig config = config("crigate.sock", "state", "full:Version");

    try (Gateway gateway = Gateway.start(config, Map.of("memory", memory))) {
      assertThat(call(gateway.socket())).isEqualTo("crigate");
      assertThat(contexts).extracting(InitContext::name).containsExactly("default", "gpu");
      assertThat(contexts.get(1).stateDir()).isEqualTo(dir.resolve("state/backends/gpu")).isDirectory();
      assertThat(contexts.get(0).settings().get("size").asInt()).isEqualTo(3);
    }
    // close flushed the dump and removed the socket
    assertThat(dir.resolve("dump.jsonl")).content().contains("\"method\":\"Version\"");
    assertThat(dir.resolve("crigate.sock")).doesNotExist();
  }

  @Test
  void aSecondGatewayOnTheSameStateDirIsRefusedAndTheFirstKeepsServing() throws Exception {
    try (Gateway first = Gateway.start(config("a.sock", "state", "off:.*"), Map.of("memory", memory))) {
      assertThatThrownBy(() -> Gateway.start(config("b.sock", "state", "off:.*"), Map.of("memory", memory)))
          .isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessageContaining("is in use by another crigate");

      assertThat(dir.resolve("b.sock")).doesNotExist();
      assertThat(call(first.socket())).isEqualTo("crigate");
    }
  }

  @Test
  void unknownBackendTypeListsTheKnownOnesAndStartsNothing() {
    GatewayConfig config = config("crigate.sock", "state", "off:.*");

    assertThatThrownBy(() -> Gateway.start(config, Map.of("cri", memory, "slurm", memory)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("backend 'default' has unknown type 'memory' (known: cri, slurm)");
    assertThat(dir.resolve("crigate.sock")).doesNotExist();
    assertThat(dir.resolve("state")).doesNotExist();
  }

  @Test
  void aFactoryFailureClosesWhatWasStarted() {
    BackendFactory failsSecond = new BackendFactory() {
      @Override
      public String type() {
        return "memory";
      }

      @Override
      public Backend create(InitContext context) {
        if (context.name().equals("gpu")) {
          throw new CrigateException.InvalidArgument("backend 'gpu': setting 'size' is too big");
        }
        return memory.create(context);
      }
    };

    assertThatThrownBy(() -> Gateway.start(config("crigate.sock", "state", "off:.*"), Map.of("memory", failsSecond)))
        .hasMessage("backend 'gpu': setting 'size' is too big");
    // the lock was released: a corrected start succeeds
    try (Gateway gateway = Gateway.start(config("crigate.sock", "state", "off:.*"), Map.of("memory", memory))) {
      assertThat(Files.exists(gateway.socket())).isTrue();
    }
  }

  private GatewayConfig config(String socket, String state, String dump) {
    try {
      Path file = Files.writeString(dir.resolve("crigate.yaml"), """
          backends:
            - {name: default, type: memory, handlers: [default], size: 3}
            - {name: gpu, type: memory, handlers: [gpu]}
          """);
      return ConfigLoader.load(new ConfigFlags(file.toString(), dir.resolve(socket).toString(),
          dir.resolve(state).toString(), null, dump, dir.resolve("dump.jsonl").toString(), "json", null, null));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A Version call over the unix socket, as the kubelet makes it; returns the runtime name. */
  private static String call(Path socket) {
    try (UnixSocketChannel channel = UnixSocketChannel.open(socket, "gateway-test-client")) {
      return RuntimeServiceGrpc.newBlockingStub(channel.channel()).version(VersionRequest.newBuilder().setVersion("v1").build())
          .getRuntimeName();
    }
  }

}
