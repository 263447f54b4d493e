package io.crigate.core;

import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.grpc.BindableService;
import java.util.List;
import java.util.Map;

/**
 * Routes CRI calls to backends: by RuntimeClass handler when a pod is created, by recorded ownership
 * for everything after. The composition root builds one per process and serves {@link #services()}
 * behind {@link GrpcErrors#interceptor()}.
 */
public final class CriRouter {

  private final Map<String, Backend> backends;
  private final List<HandlerBinding> bindings;
  private final GatewayState state;

  private CriRouter(Map<String, Backend> backends, List<HandlerBinding> bindings, GatewayState state) {
    this.backends = backends;
    this.bindings = bindings;
    this.state = state;
  }

  public static CriRouter create(Map<String, Backend> backendsByName, List<HandlerBinding> bindings, GatewayState state) {
    return new CriRouter(Map.copyOf(backendsByName), List.copyOf(bindings), state);
  }

  /** Brings the ownership records in line with what the backends report; call once before serving. */
  public void reconcile() {}

  /** The CRI RuntimeService and ImageService implementations. */
  public List<BindableService> services() {
    return List.of();
  }
}
