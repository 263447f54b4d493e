package io.crigate.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.core.Gateway;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.images.LayerAwareImages;
import io.crigate.metrics.MeteredBackends;
import io.crigate.metrics.MetricsServer;
import io.crigate.metrics.MetricsSettings;
import io.crigate.metrics.RpcMetrics;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.CrigateException;
import io.crigate.streaming.StreamingServer;
import io.crigate.streaming.StreamingSettings;
import io.grpc.ServerInterceptor;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code crigate serve}: the CRI gateway itself. Flags left out fall back to the {@code --config}
 * file, then to built-in defaults; docs/CONFIG.md describes both forms.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Serves the CRI on a unix socket and routes each pod to a backend by RuntimeClass handler.")
final class ServeCommand implements Callable<Integer> {

  static final int EXIT_BAD_CONFIG = 2;
  static final int EXIT_START_FAILED = 1;

  @Spec
  CommandSpec spec;

  /** Settings translated from a multi-cri or CRI Resource Manager command line ({@link SeedServe}). */
  ObjectNode translated = JsonNodeFactory.instance.objectNode();

  @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file; flags override its values.")
  String config;

  @Option(names = "--socket", paramLabel = "PATH", description = "CRI socket to serve on (default /run/crigate/crigate.sock).")
  String socket;

  @Option(names = "--state-dir", paramLabel = "DIR", description = "Ownership database, lock and backend state (default /var/lib/crigate).")
  String stateDir;

  @Option(names = "--remote-runtime-endpoints", paramLabel = "NAME:ENDPOINT[,...]",
      description = "Remote CRI runtimes, multi-cri style, e.g. default:unix:///run/containerd/containerd.sock. "
          + "Each creates a cri backend NAME serving handler NAME.")
  String remoteRuntimeEndpoints;

  @Option(names = "--dump", paramLabel = "LEVEL:REGEX[,...]",
      description = "Message dump rules, levels off|short|full; the last matching rule wins, e.g. 'off:.*,short:.*Pod.*,full:CreateContainer'.")
  String dump;

  @Option(names = "--dump-file", paramLabel = "FILE", description = "Where the dump goes; '-' is standard error (default).")
  String dumpFile;

  @Option(names = "--dump-format", paramLabel = "yaml|json", description = "YAML documents (default) or JSON lines.")
  String dumpFormat;

  @Option(names = "--dump-redact-env", paramLabel = "REGEX",
      description = "Container env values whose name matches are hidden in dumps (default (?i)PASS|TOKEN|SECRET|KEY|CREDENTIAL|AUTH).")
  String dumpRedactEnv;

  @Option(names = "--log-level", paramLabel = "LEVEL", description = "trace, debug, info (default), warn, error or off.")
  String logLevel;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    GatewayConfig gatewayConfig;
    Gateway gateway;
    StreamingServer streams = null;
    MetricsServer metricsServer = null;
    AtomicBoolean serving = new AtomicBoolean();
    Logging logging;
    try {
      gatewayConfig = ConfigLoader.load(flags(), translated);
      logging = Logging.parse(gatewayConfig.logLevel(), gatewayConfig.logging());
      logging.apply(null);
      MetricsSettings metrics = MetricsSettings.parse(gatewayConfig.metrics());
      PrometheusRegistry registry = new PrometheusRegistry();
      streams = StreamingServer.create(StreamingSettings.parse(gatewayConfig.streaming()), registry);
      Map<String, BackendFactory> factories = Backends.factories();
      List<ServerInterceptor> interceptors = List.of();
      LongConsumer ownershipWrites = nanos -> {};
      Gateway.CallObserver relayedCalls = Gateway.CallObserver.NONE;
      if (metrics.enabled()) {
        // Only when enabled: without metrics the fast path carries no interceptor and no proxy at all.
        MeteredBackends metered = new MeteredBackends(registry);
        factories = metered.wrap(factories);
        ownershipWrites = metered.ownershipWrites();
        RpcMetrics calls = new RpcMetrics(registry);
        interceptors = List.of(calls);
        relayedCalls = calls::observe;
        metricsServer = MetricsServer.start(metrics, registry, serving::get);
      }
      gateway = Gateway.start(gatewayConfig, factories, new Gateway.Extensions(
          LayerAwareImages.factory(gatewayConfig.images()), AdjustmentPluginsConfig.of(gatewayConfig), streams, registry, interceptors,
          ownershipWrites, relayedCalls));
      serving.set(true);
    } catch (CrigateException.InvalidArgument e) {
      err.println("crigate serve: " + e.getMessage());
      closeQuietly(streams, metricsServer);
      return EXIT_BAD_CONFIG;
    } catch (RuntimeException e) {
      err.println("crigate serve: cannot start: " + StartFailure.describe(e));
      closeQuietly(streams, metricsServer);
      LoggerFactory.getLogger(ServeCommand.class).debug("start failed", e);
      return EXIT_START_FAILED;
    }
    Optional<SystemdNotify> systemd = SystemdNotify.fromEnvironment();
    systemd.ifPresent(notify -> notify.send("READY=1\nSTATUS=serving CRI on " + gatewayConfig.socket()));
    reloadLoggingOnHangup(logging, systemd);
    CountDownLatch stopped = new CountDownLatch(1);
    StreamingServer startedStreams = streams;
    MetricsServer startedMetrics = metricsServer;
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("crigate-shutdown").unstarted(() -> {
      serving.set(false);
      systemd.ifPresent(notify -> notify.send("STOPPING=1"));
      gateway.close();
      closeQuietly(startedStreams, startedMetrics);
      stopped.countDown();
    }));
    stopped.await();
    return 0;
  }

  private static void closeQuietly(AutoCloseable... resources) {
    for (AutoCloseable resource : resources) {
      try {
        if (resource != null) {
          resource.close();
        }
      } catch (Exception e) {
        LoggerFactory.getLogger(ServeCommand.class).warn("closing {} failed: {}", resource, e.toString());
      }
    }
  }

  /**
   * SIGHUP ({@code systemctl reload crigate}) re-reads the configuration and applies its logging
   * section and logLevel: debug output for one component without a restart. Other changes need one.
   */
  private void reloadLoggingOnHangup(Logging initial, Optional<SystemdNotify> systemd) {
    AtomicReference<Logging> current = new AtomicReference<>(initial);
    org.slf4j.Logger log = LoggerFactory.getLogger(ServeCommand.class);
    Signal.handle(new Signal("HUP"), signal -> {
      // systemctl status shows "reloading" between RELOADING=1 and the READY=1 that ends it.
      systemd.ifPresent(notify -> notify.send("RELOADING=1"));
      try {
        GatewayConfig reread = ConfigLoader.load(flags(), translated);
        Logging next = Logging.parse(reread.logLevel(), reread.logging());
        next.apply(current.getAndSet(next));
        log.info("SIGHUP: log levels now root={} {}", next.root(), next.levels());
      } catch (RuntimeException e) {
        log.warn("SIGHUP: configuration not reloaded, log levels unchanged: {}", e.getMessage());
      }
      systemd.ifPresent(notify -> notify.send("READY=1"));
    });
  }

  private ConfigFlags flags() {
    return new ConfigFlags(config, socket, stateDir, remoteRuntimeEndpoints, dump, dumpFile, dumpFormat,
        dumpRedactEnv, logLevel);
  }
}
