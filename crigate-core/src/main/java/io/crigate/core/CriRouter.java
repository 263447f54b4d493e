package io.crigate.core;

import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.grpc.BindableService;
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

  private CriRouter(Reconciler reconciler, List<BindableService> services) {
    this.reconciler = reconciler;
    this.services = services;
  }

  /**
   * @param backendsByName every configured backend by its name
   * @param bindings handler bindings; exactly one must bind {@link HandlerBinding#DEFAULT_HANDLER}
   * @param state the ownership records, owned by the caller (closed after the server stops)
   * @throws io.crigate.spi.CrigateException.InvalidArgument for a binding onto an unknown backend, a
   *     handler bound twice, or no default binding
   */
  public static CriRouter create(Map<String, Backend> backendsByName, List<HandlerBinding> bindings, GatewayState state) {
    BackendRoutes routes = BackendRoutes.of(backendsByName, bindings);
    FanOut fanOut = new FanOut();
    Owners owners = new Owners(routes, state, fanOut);
    BackendSweep sweep = new BackendSweep(routes, state, fanOut);
    Clock clock = Clock.systemUTC();
    RuntimeServiceAdapter runtime = new RuntimeServiceAdapter(
        new SandboxLifecycle(routes, owners, state, clock),
        new ContainerLifecycle(owners, state, clock),
        new Listings(sweep, state),
        new StreamingUrls(owners),
        new RuntimeInfo(routes, fanOut, sweep),
        new ContainerEvents(routes, fanOut));
    ImageServiceAdapter images = new ImageServiceAdapter(new ImageRouting(routes, sweep));
    return new CriRouter(new Reconciler(routes, state, fanOut), List.of(runtime, images));
  }

  /**
   * Brings the ownership records in line with what the backends report; call once before serving.
   * A backend that answers is adopted and its vanished objects forgotten; one that does not keeps its
   * records untouched.
   */
  public void reconcile() {
    reconciler.reconcile();
  }

  /** The CRI RuntimeService and ImageService implementations. */
  public List<BindableService> services() {
    return services;
  }
}
