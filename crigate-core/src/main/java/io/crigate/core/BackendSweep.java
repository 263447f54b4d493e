package io.crigate.core;

import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.Causes;
import io.crigate.spi.CrigateException;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every backend for its part of a list and concatenates the parts, default backend first.
 * A backend that does not offer the call contributes nothing. A backend that fails is skipped only
 * when it owns no sandboxes: leaving out live pods would make the kubelet think they died.
 */
final class BackendSweep {

  private static final Logger log = LoggerFactory.getLogger(BackendSweep.class);

  private final BackendRoutes routes;
  private final GatewayState state;
  private final FanOut fanOut;
  private final BackendCalls calls;

  BackendSweep(BackendRoutes routes, GatewayState state, FanOut fanOut, BackendCalls calls) {
    this.routes = routes;
    this.state = state;
    this.fanOut = fanOut;
    this.calls = calls;
  }

  /**
   * Like {@link #collect}, without blocking: every backend is called at once through
   * {@link BackendCalls}, and the merged list completes when the last one has answered.
   */
  <Q, R, T> CompletionStage<List<T>> collectAsync(BackendCall<Q, R> call, Q request, Function<R, List<T>> items) {
    List<Backend> backends = List.copyOf(routes.all());
    List<CompletableFuture<R>> replies = new ArrayList<>(backends.size());
    for (Backend backend : backends) {
      replies.add(calls.call(backend, call, request).toCompletableFuture());
    }
    return CompletableFuture.allOf(replies.stream().map(reply -> reply.exceptionally(failure -> null))
            .toArray(CompletableFuture[]::new))
        .thenApply(done -> {
          List<T> merged = new ArrayList<>();
          for (int i = 0; i < backends.size(); i++) {
            CompletableFuture<R> reply = replies.get(i);
            if (reply.isCompletedExceptionally()) {
              checkSkippable(call.rpc(), backends.get(i), reply.handle((value, failure) -> Causes.unwrapCompletion(failure)).join());
            } else {
              merged.addAll(items.apply(reply.join()));
            }
          }
          return merged;
        });
  }

  /** @throws CrigateException.Unavailable naming a failed backend that owns sandboxes */
  <T> List<T> collect(String rpc, Function<Backend, List<T>> part) {
    List<T> merged = new ArrayList<>();
    for (FanOut.Reply<List<T>> reply : fanOut.ask(routes.all(), part)) {
      if (reply.ok()) {
        merged.addAll(reply.value());
      } else {
        checkSkippable(rpc, reply.backend(), reply.failure());
      }
    }
    return merged;
  }

  /** Sends {@code call} to every backend; fails as {@link #collect} would. */
  void everywhere(String rpc, Function<Backend, ?> call) {
    collect(rpc, backend -> {
      call.apply(backend);
      return List.of();
    });
  }

  private void checkSkippable(String rpc, Backend backend, Throwable failure) {
    if (GrpcErrors.codeOf(failure) == Status.Code.UNIMPLEMENTED) {
      return;
    }
    int owned = state.sandboxes().ownedBy(backend.name()).size();
    if (owned > 0) {
      throw new CrigateException.Unavailable("%s: backend %s owns %d sandbox(es) but did not answer: %s"
          .formatted(rpc, backend.name(), owned, failure.getMessage()), failure);
    }
    log.warn("{}: skipping backend {}, which owns no sandboxes and did not answer: {}", rpc, backend.name(), failure.toString());
  }
}
