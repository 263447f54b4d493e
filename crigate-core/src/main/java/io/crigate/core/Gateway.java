package io.crigate.core;

import io.crigate.core.config.BackendConfig;
import io.crigate.core.config.BackendTimeouts;
import io.crigate.core.config.GatewayConfig;
import io.crigate.core.dump.DumpInterceptor;
import io.crigate.core.server.CriServer;
import io.crigate.core.server.SocketFile;
import io.crigate.core.server.StateDirLock;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.PrivateFiles;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.InitContext;
import io.crigate.spi.Streams;
import io.crigate.transport.EventLoops;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running crigate: state, backends, router and the CRI server, started in that order and
 * closed in the reverse one. If any step fails, everything already started is closed again, so a
 * failed start leaves no lock, socket or open backend behind.
 */
public final class Gateway implements AutoCloseable {

  /** How long in-flight calls may run on shutdown; the kubelet retries what is cut off. */
  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);
  /** Event loop threads shared by the CRI server and the backend channels. */
  static final int IO_THREADS = 1;
  private static final Logger log = LoggerFactory.getLogger(Gateway.class);

  private final Deque<AutoCloseable> running;
  private final Path socket;

  private Gateway(Deque<AutoCloseable> running, Path socket) {
    this.running = running;
    this.socket = socket;
  }

  /**
   * @throws CrigateException.InvalidArgument for a backend type no factory provides, or settings a
   *     factory rejects
   * @throws CrigateException.FailedPrecondition when the state dir or socket is in use
   */
  public static Gateway start(GatewayConfig config, Map<String, BackendFactory> factories) {
    return start(config, factories, nodeImages -> ImageObserver.NONE);
  }

  /**
   * As {@link #start(GatewayConfig, Map)}, with an observer of image traffic (layer annotations,
   * node inventory) built once the node's merged image store exists; closed with the gateway.
   */
  public static Gateway start(GatewayConfig config, Map<String, BackendFactory> factories,
      ImageObserver.Factory imageObservers) {
    return start(config, factories, imageObservers, AdjustmentPlugins.NONE);
  }

  /**
   * As {@link #start(GatewayConfig, Map, ImageObserver.Factory)}, with adjustment plugins (resource
   * policies, hooks) in the request path; they are closed with the gateway, after the server.
   */
  public static Gateway start(GatewayConfig config, Map<String, BackendFactory> factories,
      ImageObserver.Factory imageObservers, AdjustmentPlugins plugins) {
    return start(config, factories,
        new Extensions(imageObservers, plugins, Streams.NONE, new PrometheusRegistry(), List.of(), nanos -> {},
            CallObserver.NONE));
  }

  /**
   * What the composition root adds to a gateway; the caller owns the streaming server and closes it
   * after the gateway.
   *
   * @param imageObservers see {@link #start(GatewayConfig, Map, ImageObserver.Factory)}
   * @param plugins see {@link #start(GatewayConfig, Map, ImageObserver.Factory, AdjustmentPlugins)}
   * @param streams crigate's streaming server, offered to backends
   * @param metrics the registry backends put their metrics in
   * @param interceptors outermost first, around error mapping and dump (e.g. call metrics, which must
   *     see the status errors were mapped to)
   * @param ownershipWriteNanos hears how long each committed write of the gateway's own records took
   * @param relayedCalls hears how each call relayed below the gRPC call layer ended, which no
   *     interceptor sees (the call metrics)
   */
  public record Extensions(ImageObserver.Factory imageObservers, AdjustmentPlugins plugins, Streams streams,
      PrometheusRegistry metrics, List<ServerInterceptor> interceptors, LongConsumer ownershipWriteNanos,
      CallObserver relayedCalls) {}

  /** Hears how a CRI call ended: its bare method name, its status and how long it took. */
  @FunctionalInterface
  public interface CallObserver {
    CallObserver NONE = (method, code, nanos) -> {};

    void ended(String method, Status.Code code, long nanos);
  }

  public static Gateway start(GatewayConfig config, Map<String, BackendFactory> factories, Extensions extensions) {
    ImageObserver.Factory imageObservers = extensions.imageObservers();
    AdjustmentPlugins plugins = extensions.plugins();
    checkTypes(config, factories);
    config.warnings().forEach(log::warn);
    long startNanos = System.nanoTime();
    Deque<AutoCloseable> running = new ArrayDeque<>();
    try {
      SocketFile socket = SocketFile.prepare(config.socket(), config.socketGroup());
      running.push(socket);
      running.push(StateDirLock.acquire(config.stateDir()));
      // One I/O thread for the server and every backend channel: a forwarded call then never
      // changes threads, and one thread keeps up with a node's CRI traffic (docs/benchmarks.md).
      EventLoopGroup eventLoops = EventLoops.epoll(IO_THREADS, "crigate-io");
      running.push(() -> EventLoops.shutdown(eventLoops, 2));
      GatewayState state = GatewayState.open(config.stateDir(), extensions.ownershipWriteNanos());
      running.push(state);
      Map<String, Backend> backends = new LinkedHashMap<>();
      Map<String, BackendTimeouts> timeouts = new LinkedHashMap<>();
      for (BackendConfig backend : config.backends()) {
        Backend created = factories.get(backend.type())
            .create(initContext(config.stateDir(), backend, state, eventLoops, extensions));
        running.push(created);
        backends.put(backend.name(), created);
        timeouts.put(backend.name(), backend.timeouts());
      }
      CriRouter router = CriRouter.create(backends, config.bindings(), timeouts, state, imageObservers, eventLoops);
      running.push(router.imageObserver());
      running.push(router);
      router.reconcile();
      running.push(router.startAdjustments(plugins, config.stateDir(), state, extensions.metrics()));
      List<ServerInterceptor> interceptors = new ArrayList<>(List.of(GrpcErrors.interceptor()));
      if (config.dump().rules().enabled()) {
        DumpInterceptor dump = DumpInterceptor.open(config.dump(), Clock.systemUTC());
        running.push(dump);
        interceptors.add(dump); // added last, so it runs first: it sees the status errors were mapped to
      }
      interceptors.addAll(extensions.interceptors().reversed());
      List<ServerServiceDefinition> services = router.services().stream()
          .map(service -> ServerInterceptors.intercept(service, interceptors))
          .toList();
      // Routed reads to a runtime that takes calls unchanged skip the gRPC call layer (RelayRoutes);
      // the dumped methods keep it, as the dump records parsed calls.
      Predicate<String> dumped = config.dump().rules().enabled() ? config.dump().rules()::records : method -> false;
      Optional<RelayRoutes> relay = router.relayRoutes(eventLoops, dumped, extensions.relayedCalls());
      relay.ifPresent(running::push);
      running.push(CriServer.start(socket, services, SHUTDOWN_GRACE, eventLoops, CriRouter.nonBlockingMethods(),
          config.maxCallsPerConnection(), relay.map(routes -> routes::router)));
      router.startHealthProbes();
      logServing(config, Duration.ofNanos(System.nanoTime() - startNanos));
      return new Gateway(running, config.socket());
    } catch (RuntimeException e) {
      closeAll(running, e);
      throw e;
    }
  }

  public Path socket() {
    return socket;
  }

  /** Stops serving (in-flight calls get {@link #SHUTDOWN_GRACE}), then closes dump, backends, state and lock. */
  @Override
  public void close() {
    RuntimeException failure = new IllegalStateException("closing crigate failed");
    closeAll(running, failure);
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
    log.info("stopped serving on {}", socket);
  }

  private static void checkTypes(GatewayConfig config, Map<String, BackendFactory> factories) {
    for (BackendConfig backend : config.backends()) {
      if (!factories.containsKey(backend.type())) {
        throw new CrigateException.InvalidArgument("backend '%s' has unknown type '%s' (known: %s)"
            .formatted(backend.name(), backend.type(), String.join(", ", new TreeSet<>(factories.keySet()))));
      }
    }
  }

  private static InitContext initContext(Path stateDir, BackendConfig backend, GatewayState state,
      EventLoopGroup eventLoops, Extensions extensions) {
    Path dir = PrivateFiles.directory(PrivateFiles.directory(stateDir.resolve("backends")).resolve(backend.name()));
    return new InitContext(backend.name(), backend.settings(), dir, state.backendStore(backend.name()), Clock.systemUTC(),
        eventLoops, extensions.streams(), extensions.metrics());
  }

  private static void logServing(GatewayConfig config, Duration gatewayStart) {
    String sinceStart = ProcessHandle.current().info().startInstant()
        .map(start -> Duration.between(start, Instant.now()).toMillis() + " ms after process start")
        .orElse("process start time unknown");
    log.info("serving CRI on {} with backends {} ({}; gateway start {} ms)", config.socket(),
        config.backends().stream().map(BackendConfig::name).toList(), sinceStart, gatewayStart.toMillis());
  }

  /** Closes in reverse start order; every failure is added to {@code failure} as suppressed. */
  private static void closeAll(Deque<AutoCloseable> running, Throwable failure) {
    while (!running.isEmpty()) {
      AutoCloseable resource = running.pop();
      try {
        resource.close();
      } catch (Exception e) {
        failure.addSuppressed(e);
      }
    }
  }
}
