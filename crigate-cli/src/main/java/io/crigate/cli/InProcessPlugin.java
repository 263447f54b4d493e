package io.crigate.cli;

import io.crigate.core.config.BackendConfig;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.core.server.StateDirLock;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.PrivateFiles;
import io.crigate.interlink.plugin.CrigatePlugin;
import io.crigate.interlink.plugin.PluginSettings;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.InitContext;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * crigate's interLink plugin in this JVM, over one backend of a crigate configuration file: what
 * {@code interlink-plugin} serves, and what {@code interlink-api --config} forwards to without a hop.
 */
final class InProcessPlugin {

  static final String DEFAULT_STATE_DIR = "/var/lib/crigate-interlink";

  @Option(names = "--config", paramLabel = "FILE",
      description = "crigate YAML configuration; its backends section defines the backend (docs/CONFIG.md).")
  String config;

  @Option(names = "--backend", paramLabel = "NAME", description = "Which backend of the file serves pods (default: the first).")
  String backendName;

  @Option(names = "--state-dir", paramLabel = "DIR",
      description = "The plugin's own state (pods, backend records); not a running 'serve's directory. Default: " + DEFAULT_STATE_DIR)
  String stateDir;

  @Option(names = "--volume-dir", paramLabel = "DIR",
      description = "Where ConfigMap/Secret/projected/emptyDir volumes are written; for Slurm a directory the compute nodes "
          + "share. Default: <state-dir>/volumes")
  Path volumeDir;

  @Option(names = "--log-dir", paramLabel = "DIR", description = "Where container logs are kept. Default: <state-dir>/logs")
  Path logDir;

  @Option(names = "--runtime-handler", defaultValue = "", description = "CRI runtime handler asked of the backend (default: its own).")
  String runtimeHandler;

  @Option(names = "--cpu", defaultValue = "2", description = "Capacity a ping reports. Default: ${DEFAULT-VALUE}")
  String cpu;

  @Option(names = "--memory", defaultValue = "4Gi", description = "Default: ${DEFAULT-VALUE}")
  String memory;

  @Option(names = "--pods", defaultValue = "100", description = "Default: ${DEFAULT-VALUE}")
  String pods;

  @Option(names = "--taint", paramLabel = "KEY[=VALUE]:EFFECT", description = "A taint a ping asks the virtual node to carry; repeatable.")
  List<String> taints = List.of();

  /** interLink's SidecarService: without --backend, the first backend of this type serves. */
  private String preferredType;

  void preferType(String type) {
    preferredType = type;
  }

  boolean configured() {
    return config != null;
  }

  /** Opens state, backend and plugin; each is pushed on {@code running}, to be closed in reverse. */
  CrigatePlugin open(Deque<AutoCloseable> running) {
    GatewayConfig gateway = ConfigLoader.load(new ConfigFlags(config, null,
        stateDir == null ? DEFAULT_STATE_DIR : stateDir, null, null, null, null, null, null));
    BackendConfig chosen = chooseBackend(gateway.backends());
    BackendFactory factory = Backends.factories().get(chosen.type());
    if (factory == null) {
      throw new CrigateException.InvalidArgument("backend '%s' has unknown type '%s'".formatted(chosen.name(), chosen.type()));
    }
    List<PingResponse.Taint> nodeTaints = parseTaints(taints);
    Path state = gateway.stateDir();
    running.push(StateDirLock.acquire(state));
    GatewayState store = GatewayState.open(state);
    running.push(store);
    EventLoopGroup loops = EventLoops.epoll(1, "interlink-io");
    running.push(() -> EventLoops.shutdown(loops, 2));
    Path backendDir = PrivateFiles.directory(PrivateFiles.directory(state.resolve("backends")).resolve(chosen.name()));
    Backend backend = factory.create(new InitContext(chosen.name(), chosen.settings(), backendDir,
        store.backendStore(chosen.name()), Clock.systemUTC(), loops));
    running.push(backend);
    PluginSettings settings = new PluginSettings(
        volumeDir != null ? volumeDir : state.resolve("volumes"),
        logDir != null ? logDir : state.resolve("logs"),
        Duration.ofMillis(500), runtimeHandler,
        new PingResponse.Resources(cpu, memory, pods, List.of()), nodeTaints);
    CrigatePlugin plugin = new CrigatePlugin(backend, store.backendStore("interlink-plugin"), settings, Clock.systemUTC());
    running.push(plugin);
    return plugin;
  }

  private BackendConfig chooseBackend(List<BackendConfig> backends) {
    if (backends.isEmpty()) {
      throw new CrigateException.InvalidArgument("the configuration defines no backend");
    }
    if (backendName == null && preferredType != null) {
      return backends.stream().filter(b -> b.type().equals(preferredType)).findFirst()
          .orElseThrow(() -> new CrigateException.InvalidArgument(("InterLinkConfig.yaml's SidecarService asks for a %s "
              + "backend; the configuration has none (backends: %s)").formatted(preferredType,
              backends.stream().map(b -> b.name() + " (" + b.type() + ")").toList())));
    }
    if (backendName == null) {
      return backends.getFirst();
    }
    return backends.stream().filter(b -> b.name().equals(backendName)).findFirst()
        .orElseThrow(() -> new CrigateException.InvalidArgument("--backend %s: not in the configuration (known: %s)"
            .formatted(backendName, backends.stream().map(BackendConfig::name).toList())));
  }

  /** {@code key=value:Effect} or {@code key:Effect}, as kubectl taint writes them. */
  static List<PingResponse.Taint> parseTaints(List<String> specs) {
    List<PingResponse.Taint> parsed = new ArrayList<>();
    for (String taint : specs) {
      int colon = taint.lastIndexOf(':');
      if (colon <= 0) {
        throw new CrigateException.InvalidArgument("--taint %s: expected KEY[=VALUE]:EFFECT".formatted(taint));
      }
      String effect = taint.substring(colon + 1);
      if (!List.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(effect)) {
        throw new CrigateException.InvalidArgument("--taint %s: effect must be NoSchedule, PreferNoSchedule or NoExecute"
            .formatted(taint));
      }
      String[] keyValue = taint.substring(0, colon).split("=", 2);
      parsed.add(new PingResponse.Taint(keyValue[0], keyValue.length > 1 ? keyValue[1] : "", effect));
    }
    return parsed;
  }
}
