package io.crigate.core;

import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.spi.Causes;
import io.crigate.spi.CrigateException;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Calls backends without blocking the caller, each within its own deadline and only while its
 * health probe says it answers. A backend with an asynchronous form is called on the current
 * thread (the server's event loop) and answers there; one without it runs the blocking method on a
 * bounded executor of its own, never on an event loop.
 */
final class BackendCalls implements AutoCloseable {

  /** At most this many blocking calls per backend at once; the rest queue. */
  static final int BLOCKING_CALLS_PER_BACKEND = 32;

  private final Map<String, ExecutorService> blockingExecutors;
  private final BackendHealth health;
  private final ScheduledExecutorService timers;

  private BackendCalls(Map<String, ExecutorService> blockingExecutors, BackendHealth health,
      ScheduledExecutorService timers) {
    this.blockingExecutors = blockingExecutors;
    this.health = health;
    this.timers = timers;
  }

  /** @param timers schedules deadlines; the event loop group, so arming one from a loop costs no wake-up */
  static BackendCalls of(BackendRoutes routes, BackendHealth health, ScheduledExecutorService timers) {
    Map<String, ExecutorService> executors = routes.all().stream().filter(backend -> backend.async().isEmpty())
        .collect(Collectors.toMap(Backend::name, backend -> Executors.newFixedThreadPool(BLOCKING_CALLS_PER_BACKEND,
            Thread.ofVirtual().name("crigate-" + backend.name() + "-", 0).factory())));
    return new BackendCalls(executors, health, timers);
  }

  /**
   * Forwards {@code request} to {@code backend}. Fails fast with UNAVAILABLE naming the backend
   * when its health probe failed; fails with UNAVAILABLE when it does not answer within its call
   * timeout, and then marks it unhealthy.
   */
  <Q, R> CompletionStage<R> call(Backend backend, BackendCall<Q, R> call, Q request) {
    Optional<CrigateException.Unavailable> down = health.unavailable(backend.name());
    if (down.isPresent()) {
      return CompletableFuture.failedFuture(down.get());
    }
    return bounded(backend, call, request, call.allowance().of(request, health.callTimeout(backend.name())));
  }

  /** Like {@link #call} without the health check and within {@code timeout}: the health probe itself. */
  <Q, R> CompletionStage<R> probe(Backend backend, BackendCall<Q, R> call, Q request, Duration timeout) {
    return bounded(backend, call, request, Optional.of(timeout));
  }

  private <Q, R> CompletionStage<R> bounded(Backend backend, BackendCall<Q, R> call, Q request, Optional<Duration> allowance) {
    Context caller = Context.current();
    CompletableFuture<R> reply;
    try {
      reply = start(backend, call, request, allowance).toCompletableFuture();
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return reply.handle((value, failure) -> {
      if (failure == null) {
        return value;
      }
      Throwable cause = Causes.unwrapCompletion(failure);
      if (allowance.isPresent()) {
        throw explain(backend, call.rpc(), allowance.get(), cause, caller);
      }
      throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
    });
  }

  /**
   * A backend with an asynchronous form gets the allowance as its call's own deadline: one timer,
   * armed on the event loop by grpc, and no derived context per call. A blocking backend runs in a
   * context bounded by the allowance, and the caller stops waiting when it passes even if the
   * backend ignores the context.
   */
  private <Q, R> CompletionStage<R> start(Backend backend, BackendCall<Q, R> call, Q request, Optional<Duration> allowance) {
    Optional<AsyncCalls> async = backend.async();
    if (async.isPresent()) {
      return async.get().call(call.method(), request, allowance);
    }
    Context caller = Context.current();
    Optional<Context.CancellableContext> bounded = allowance.map(timeout ->
        caller.withDeadline(Deadline.after(timeout.toNanos(), TimeUnit.NANOSECONDS), timers));
    Context context = bounded.<Context>map(c -> c).orElse(caller);
    CompletableFuture<R> reply = CompletableFuture.supplyAsync(() -> {
      Context previous = context.attach();
      try {
        return call.blocking().apply(backend, request);
      } finally {
        context.detach(previous);
      }
    }, blockingExecutors.get(backend.name()));
    if (allowance.isPresent()) {
      reply = reply.orTimeout(allowance.get().toNanos(), TimeUnit.NANOSECONDS);
    }
    return reply.whenComplete((value, failure) -> bounded.ifPresent(c -> c.cancel(null)));
  }

  /**
   * A backend that let crigate's own deadline pass (not the kubelet's) is frozen or overloaded: say
   * so by name, and stop sending it calls until its probe answers again.
   */
  private RuntimeException explain(Backend backend, String rpc, Duration timeout, Throwable failure, Context caller) {
    boolean timedOut = failure instanceof TimeoutException || GrpcErrors.codeOf(failure) == Status.Code.DEADLINE_EXCEEDED;
    Deadline callerDeadline = caller.getDeadline();
    if (timedOut && (callerDeadline == null || !callerDeadline.isExpired())) {
      String reason = "backend %s did not answer %s within its call timeout of %d ms"
          .formatted(backend.name(), rpc, timeout.toMillis());
      health.markUnhealthy(backend.name(), reason);
      return new CrigateException.Unavailable(reason, failure);
    }
    return failure instanceof RuntimeException runtime ? runtime : new CompletionException(failure);
  }

  @Override
  public void close() {
    blockingExecutors.values().forEach(ExecutorService::shutdownNow);
  }
}
