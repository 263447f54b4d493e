package io.crigate.core;

import io.crigate.core.config.BackendTimeouts;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.adjust.ContainerStopper;
import io.crigate.spi.adjust.PluginChain;
import io.grpc.BindableService;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;

/**
 * Routes CRI calls to backends: by RuntimeClass handler when a pod is created, by recorded ownership
 * for everything after. The composition root builds one per process, calls {@link #reconcile()},
 * then serves {@link #services()} behind {@link GrpcErrors#interceptor()}.
 */
final class CriRouter implements AutoCloseable {

  private final Reconciler reconciler;
  private final List<BindableService> services;
  private final ImageObserver imageObserver;
  private final ProxyAdjustments adjustments;
  private final ContainerStopper evictions;
  private final Runnable startProbes;
  private final RelayFactory relay;
  private final List<AutoCloseable> owned;

  /** Builds the relay's routes over this router's ownership records and backend health. */
  @FunctionalInterface
  private interface RelayFactory {
    Optional<RelayRoutes> create(EventLoopGroup eventLoops, Predicate<String> dumped, Gateway.CallObserver observer);
  }

  private CriRouter(Reconciler reconciler, List<BindableService> services, ImageObserver imageObserver,
      ProxyAdjustments adjustments, ContainerStopper evictions, Runnable startProbes, RelayFactory relay,
      List<AutoCloseable> owned) {
    this.reconciler = reconciler;
    this.evictions = evictions;
    this.services = services;
    this.imageObserver = imageObserver;
    this.adjustments = adjustments;
    this.startProbes = startProbes;
    this.relay = relay;
    this.owned = owned;
  }

  /**
   * @param backendsByName every configured backend by its name
   * @param bindings handler bindings; exactly one must bind {@link HandlerBinding#DEFAULT_HANDLER}
   * @param timeouts each backend's call timeout and health probe; a backend not named gets the defaults
   * @param state the ownership records, owned by the caller (closed after the router)
   * @param imageObservers builds the observer of image traffic, given the node's merged image store;
   *     the observer is owned by the caller, see {@link #imageObserver()}
   * @param timers where deadlines and health probes are scheduled: the server's event loops
   * @throws io.crigate.spi.CrigateException.InvalidArgument for a binding onto an unknown backend, a
   *     handler bound twice, or no default binding
   */
  public static CriRouter create(Map<String, Backend> backendsByName, List<HandlerBinding> bindings,
      Map<String, BackendTimeouts> timeouts, GatewayState state, ImageObserver.Factory imageObservers,
      ScheduledExecutorService timers) {
    BackendRoutes routes = BackendRoutes.of(backendsByName, bindings);
    BackendHealth health = new BackendHealth(timeouts);
    BackendCalls calls = BackendCalls.of(routes, health, timers);
    FanOut fanOut = new FanOut(health);
    Owners owners = new Owners(routes, state, fanOut, health);
    Forwarder forwarder = new Forwarder(owners, calls, fanOut::start);
    BackendSweep sweep = new BackendSweep(routes, state, fanOut, calls);
    Clock clock = Clock.systemUTC();
    ProxyAdjustments adjustments = new ProxyAdjustments(state, owners);
    ContainerLifecycle containers = new ContainerLifecycle(owners, forwarder, state, clock, adjustments);
    RuntimeServiceAdapter runtime = new RuntimeServiceAdapter(
        new SandboxLifecycle(routes, owners, forwarder, state, clock, adjustments),
        containers,
        new Listings(sweep, state),
        new StreamingUrls(forwarder),
        new RuntimeInfo(routes, calls, sweep),
        new ContainerEvents(routes, fanOut));
    ImageRouting imageRouting = new ImageRouting(routes, sweep, state.sandboxes());
    ImageObserver imageObserver = imageObservers.create(imageRouting);
    ImageServiceAdapter images = new ImageServiceAdapter(new ObservedImages(imageRouting, imageObserver));
    return new CriRouter(new Reconciler(routes, state, fanOut), List.of(runtime, images), imageObserver, adjustments,
        new Evictions(owners, containers), () -> health.startProbes(routes.all(), calls, timers),
        (eventLoops, dumped, observer) -> RelayRoutes.of(routes, state, health, eventLoops, dumped,
            new RelayRoutes.Followed(adjustments::follows, adjustments::followsSandbox), observer),
        List.of(health, calls));
  }

  /**
   * Installs the adjustment plugins in the request path; call after {@link #reconcile()}, before
   * serving. They are synchronized with the containers recorded earlier, as those really run now.
   *
   * @return the chain, owned by the caller (closed after the server stops)
   */
  public PluginChain startAdjustments(AdjustmentPlugins plugins, Path stateDir, GatewayState state,
      PrometheusRegistry metrics) {
    PluginEnvironment environment = new PluginEnvironment(stateDir,
        name -> state.backendStore(PluginEnvironment.namespace(name)), adjustments::update, evictions, Clock.systemUTC(),
        metrics);
    PluginChain chain = new PluginChain(plugins.create(environment));
    adjustments.start(chain);
    return chain;
  }

  /**
   * Brings the ownership records in line with what the backends report; call once before serving.
   * A backend that answers is adopted and its vanished objects forgotten; one that does not keeps its
   * records untouched.
   */
  public void reconcile() {
    reconciler.reconcile();
  }

  /** Starts probing every backend's health; call once serving starts. Stopped by {@link #close()}. */
  public void startHealthProbes() {
    startProbes.run();
  }

  /**
   * The names of the CRI methods whose handlers never block, so the server may run them on its event
   * loop; every other method needs a thread of its own.
   */
  public static Set<String> nonBlockingMethods() {
    return RuntimeServiceAdapter.NON_BLOCKING;
  }

  /**
   * The routes of calls relayed below the gRPC call layer, or empty when no backend forwards calls
   * unchanged. The caller closes them after the server.
   *
   * @param dumped whether the dump rules record a method, by full name: those are never relayed
   * @param observer hears how each relayed call ended (the call metrics)
   */
  Optional<RelayRoutes> relayRoutes(EventLoopGroup eventLoops, Predicate<String> dumped, Gateway.CallObserver observer) {
    return relay.create(eventLoops, dumped, observer);
  }

  /** Stops the health probes and the backends' blocking executors. */
  @Override
  public void close() throws Exception {
    for (AutoCloseable resource : owned) {
      resource.close();
    }
  }

  /** The observer of image traffic this router feeds; whoever built the router closes it. */
  public ImageObserver imageObserver() {
    return imageObserver;
  }

  /** The CRI RuntimeService and ImageService implementations. */
  public List<BindableService> services() {
    return services;
  }
}
