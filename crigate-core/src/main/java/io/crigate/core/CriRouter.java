package io.crigate.core;

import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.adjust.PluginChain;
import io.grpc.BindableService;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * Routes CRI calls to backends: by RuntimeClass handler when a pod is created, by recorded ownership
 * for everything after. The composition root builds one per process, calls {@link #reconcile()},
 * then serves {@link #services()} behind {@link GrpcErrors#interceptor()}.
 */
public final class CriRouter {

  private final Reconciler reconciler;
  private final List<BindableService> services;
  private final ImageObserver imageObserver;
  private final ProxyAdjustments adjustments;

  private CriRouter(Reconciler reconciler, List<BindableService> services, ImageObserver imageObserver,
      ProxyAdjustments adjustments) {
    this.reconciler = reconciler;
    this.services = services;
    this.imageObserver = imageObserver;
    this.adjustments = adjustments;
  }

  /** A router without image extensions. */
  public static CriRouter create(Map<String, Backend> backendsByName, List<HandlerBinding> bindings, GatewayState state) {
    return create(backendsByName, bindings, state, nodeImages -> ImageObserver.NONE);
  }

  /**
   * @param backendsByName every configured backend by its name
   * @param bindings handler bindings; exactly one must bind {@link HandlerBinding#DEFAULT_HANDLER}
   * @param state the ownership records, owned by the caller (closed after the server stops)
   * @param imageObservers builds the observer of image traffic, given the node's merged image store;
   *     the observer is owned by the caller, see {@link #imageObserver()}
   * @throws io.crigate.spi.CrigateException.InvalidArgument for a binding onto an unknown backend, a
   *     handler bound twice, or no default binding
   */
  public static CriRouter create(Map<String, Backend> backendsByName, List<HandlerBinding> bindings,
      GatewayState state, ImageObserver.Factory imageObservers) {
    BackendRoutes routes = BackendRoutes.of(backendsByName, bindings);
    FanOut fanOut = new FanOut();
    Owners owners = new Owners(routes, state, fanOut);
    BackendSweep sweep = new BackendSweep(routes, state, fanOut);
    Clock clock = Clock.systemUTC();
    ProxyAdjustments adjustments = new ProxyAdjustments(state.backendStore(ProxyAdjustments.NAMESPACE), owners);
    RuntimeServiceAdapter runtime = new RuntimeServiceAdapter(
        new SandboxLifecycle(routes, owners, state, clock, adjustments),
        new ContainerLifecycle(owners, state, clock, adjustments),
        new Listings(sweep, state),
        new StreamingUrls(owners),
        new RuntimeInfo(routes, fanOut, sweep),
        new ContainerEvents(routes, fanOut));
    ImageRouting imageRouting = new ImageRouting(routes, sweep, state.sandboxes());
    ImageObserver imageObserver = imageObservers.create(imageRouting);
    ImageServiceAdapter images = new ImageServiceAdapter(new ObservedImages(imageRouting, imageObserver));
    return new CriRouter(new Reconciler(routes, state, fanOut), List.of(runtime, images), imageObserver, adjustments);
  }

  /**
   * Installs the adjustment plugins in the request path; call after {@link #reconcile()}, before
   * serving. They are synchronized with the containers recorded earlier, as those really run now.
   *
   * @return the chain, owned by the caller (closed after the server stops)
   */
  public PluginChain startAdjustments(AdjustmentPlugins plugins, Path stateDir, GatewayState state) {
    PluginEnvironment environment = new PluginEnvironment(stateDir,
        name -> state.backendStore(PluginEnvironment.namespace(name)), adjustments::update, Clock.systemUTC());
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

  /** The observer of image traffic this router feeds; whoever built the router closes it. */
  public ImageObserver imageObserver() {
    return imageObserver;
  }

  /** The CRI RuntimeService and ImageService implementations. */
  public List<BindableService> services() {
    return services;
  }
}
