package io.crigate.core;

import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The configured backends and the handler bindings onto them, checked once at start. Backends are
 * ordered default-first, so merged answers put the default backend's items (and its image
 * filesystem, which the kubelet reads first) ahead of the others.
 */
final class BackendRoutes {

  /** Where pods of one handler go. */
  record Route(HandlerBinding binding, Backend backend) {}

  private final Map<String, Route> byHandler;
  private final Map<String, Backend> backends;

  private BackendRoutes(Map<String, Route> byHandler, Map<String, Backend> backends) {
    this.byHandler = byHandler;
    this.backends = backends;
  }

  /** @throws CrigateException.InvalidArgument for a binding onto an unknown backend, a duplicate handler, or no default */
  static BackendRoutes of(Map<String, Backend> backendsByName, List<HandlerBinding> bindings) {
    Map<String, Route> byHandler = new LinkedHashMap<>();
    for (HandlerBinding binding : bindings) {
      Backend backend = backendsByName.get(binding.backend());
      if (backend == null) {
        throw new CrigateException.InvalidArgument("handler %s is bound to backend %s, which is not configured (configured: %s)"
            .formatted(binding.handler(), binding.backend(), backendsByName.keySet()));
      }
      String handler = HandlerBinding.normalize(binding.handler());
      if (byHandler.putIfAbsent(handler, new Route(binding, backend)) != null) {
        throw new CrigateException.InvalidArgument("handler %s is bound twice".formatted(handler));
      }
    }
    Route fallback = byHandler.get(HandlerBinding.DEFAULT_HANDLER);
    if (fallback == null) {
      throw new CrigateException.InvalidArgument(
          "no backend is bound to handler %s, which pods without a RuntimeClass use".formatted(HandlerBinding.DEFAULT_HANDLER));
    }
    Map<String, Backend> ordered = new LinkedHashMap<>();
    ordered.put(fallback.backend().name(), fallback.backend());
    backendsByName.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(entry -> ordered.putIfAbsent(entry.getKey(), entry.getValue()));
    return new BackendRoutes(byHandler, ordered);
  }

  /** @throws CrigateException.InvalidArgument naming the known handlers when {@code kubeletHandler} is not bound */
  Route forHandler(String kubeletHandler) {
    Route route = byHandler.get(HandlerBinding.normalize(kubeletHandler));
    if (route == null) {
      throw new CrigateException.InvalidArgument("runtime handler \"%s\" is not configured; known handlers: %s"
          .formatted(kubeletHandler, knownHandlers()));
    }
    return route;
  }

  Backend defaultBackend() {
    return byHandler.get(HandlerBinding.DEFAULT_HANDLER).backend();
  }

  /** @throws CrigateException.FailedPrecondition when a record names a backend no longer configured */
  Backend backend(String name) {
    Backend backend = backends.get(name);
    if (backend == null) {
      throw new CrigateException.FailedPrecondition(
          "backend %s owns this object but is no longer configured (configured: %s)".formatted(name, backends.keySet()));
    }
    return backend;
  }

  /** Every configured backend, default first. */
  Collection<Backend> all() {
    return backends.values();
  }

  Collection<Route> routes() {
    return byHandler.values();
  }

  /**
   * The kubelet's name for a handler that a backend reports, for objects crigate adopts rather than
   * creates: the binding onto that backend and handler, else any binding onto that backend.
   */
  String kubeletHandler(String backendName, String backendHandler) {
    return byHandler.values().stream()
        .filter(route -> route.backend().name().equals(backendName))
        .min(Comparator.comparing(route -> !route.binding().backendHandler().equals(backendHandler)))
        .map(route -> HandlerBinding.normalize(route.binding().handler()))
        .orElse(HandlerBinding.DEFAULT_HANDLER);
  }

  private String knownHandlers() {
    return byHandler.keySet().stream()
        .map(handler -> handler.equals(HandlerBinding.DEFAULT_HANDLER) ? "\"\" (default)" : "\"" + handler + "\"")
        .collect(Collectors.joining(", "));
  }
}
