package io.crigate.cli;

import io.crigate.backend.cri.RemoteCriBackendFactory;
import io.crigate.core.HandlerBinding;
import io.crigate.core.config.BackendConfig;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.hooks.HostCgroups;
import io.crigate.hooks.ListSchedule;
import io.crigate.hooks.StandaloneReconciler;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import io.crigate.spi.InitContext;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate hooks-reconciler}: the runtime hooks in standalone mode, beside a runtime the kubelet
 * talks to directly. It reads the same configuration file as {@code serve} (the {@code hooks}
 * section, live through its {@code configFile}) and watches the runtime of the default handler.
 */
@Command(
    name = "hooks-reconciler",
    mixinStandardHelpOptions = true,
    description = "Applies the runtime hooks to a CRI runtime's containers after the fact (standalone mode, docs/hooks.md).")
final class HooksReconcilerCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(HooksReconcilerCommand.class);

  @Spec
  CommandSpec spec;

  @Option(names = "--config", paramLabel = "FILE", description = "crigate's YAML configuration; its 'hooks' section is used.")
  String config;

  @Option(names = "--remote-runtime-endpoints", paramLabel = "NAME:ENDPOINT",
      description = "The runtime to watch, as for serve, e.g. default:unix:///run/containerd/containerd.sock; "
          + "the backend serving the default handler is watched.")
  String remoteRuntimeEndpoints;

  @Option(names = "--cgroup-root", paramLabel = "DIR", defaultValue = "/sys/fs/cgroup",
      description = "Where the cgroup hierarchy is mounted (default ${DEFAULT-VALUE}).")
  Path cgroupRoot;

  @Option(names = "--proc-root", paramLabel = "DIR", defaultValue = "/proc",
      description = "Where procfs is mounted (default ${DEFAULT-VALUE}).")
  Path procRoot;

  @Option(names = "--poll", paramLabel = "DURATION", defaultValue = "1s",
      description = "While the runtime sends no container events and no new container appeared for this long: "
          + "how often to list, and the longest a new container waits for its settings, the reconcile included "
          + "(default ${DEFAULT-VALUE}).")
  String poll;

  @Option(names = "--busy-poll", paramLabel = "DURATION", defaultValue = "250ms",
      description = "The same while containers keep appearing (default ${DEFAULT-VALUE}; at most --poll).")
  String busyPoll;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    GatewayConfig gatewayConfig;
    ListSchedule schedule;
    try {
      schedule = listSchedule();
      gatewayConfig = ConfigLoader.load(new ConfigFlags(config, null, null, remoteRuntimeEndpoints, null, null, null,
          null, null));
    } catch (CrigateException.InvalidArgument e) {
      err.println("crigate hooks-reconciler: " + e.getMessage());
      return ServeCommand.EXIT_BAD_CONFIG;
    }
    EventLoopGroup eventLoops = EventLoops.epoll(1, "hooks-cri");
    // a live change of the hooks re-applies them to every running container at once
    AtomicReference<StandaloneReconciler> current = new AtomicReference<>();
    try (Backend runtime = runtime(gatewayConfig, eventLoops);
        PluginChain engine = new PluginChain(List.of(
            RuntimeHooks.engine(gatewayConfig.hooks(), Optional.empty(), changed -> current.get().resyncAll())));
        StandaloneReconciler reconciler = new StandaloneReconciler(runtime, engine,
            HostCgroups.at(cgroupRoot, procRoot), schedule,
            RuntimeHooks.settings(gatewayConfig.hooks()).resync(), Clock.systemUTC(),
            (id, adjustment, sinceStart) -> log.debug("container {} reconciled {} after start: {}", id, sinceStart, adjustment))) {
      current.set(reconciler);
      reconciler.start();
      log.info("runtime hooks in standalone mode, watching backend {}", runtime.name());
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(stopped::countDown));
      stopped.await();
      return 0;
    } catch (CrigateException.InvalidArgument e) {
      err.println("crigate hooks-reconciler: " + e.getMessage());
      return ServeCommand.EXIT_BAD_CONFIG;
    } catch (Exception e) {
      err.println("crigate hooks-reconciler: " + e.getMessage());
      return ServeCommand.EXIT_START_FAILED;
    } finally {
      EventLoops.shutdown(eventLoops, 2);
    }
  }

  private ListSchedule listSchedule() {
    try {
      return new ListSchedule(Durations.positive("--poll", poll), Durations.positive("--busy-poll", busyPoll));
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("--poll " + poll + ", --busy-poll " + busyPoll + ": " + e.getMessage());
    }
  }

  /** The cri backend of the default handler; it keeps no records, so it gets no store. */
  private static Backend runtime(GatewayConfig config, EventLoopGroup eventLoops) {
    BackendConfig backend = config.backends().stream()
        .filter(b -> b.handlers().stream().anyMatch(h -> h.handler().equals(HandlerBinding.DEFAULT_HANDLER)))
        .findFirst()
        .orElseThrow(() -> new CrigateException.InvalidArgument("no backend serves the default handler"));
    if (!backend.type().equals(RemoteCriBackendFactory.TYPE)) {
      throw new CrigateException.InvalidArgument("backend %s is of type %s; standalone hooks watch a CRI runtime (type cri)"
          .formatted(backend.name(), backend.type()));
    }
    return new RemoteCriBackendFactory().create(new InitContext(backend.name(), backend.settings(),
        config.stateDir(), null, Clock.systemUTC(), eventLoops));
  }
}
