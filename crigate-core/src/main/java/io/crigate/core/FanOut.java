package io.crigate.core;

import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.grpc.Context;
import io.grpc.Deadline;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Asks several backends the same question at once, one virtual thread each, inside the caller's gRPC
 * context so a remote backend inherits the kubelet's deadline and cancellation.
 */
final class FanOut {

  /** One backend's answer, or why it has none. */
  record Reply<T>(Backend backend, T value, Throwable failure) {
    boolean ok() {
      return failure == null;
    }
  }

  private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
      Thread.ofVirtual().name("crigate-fanout-", 0).factory());
  private final BackendHealth health;

  FanOut(BackendHealth health) {
    this.health = health;
  }

  /**
   * Replies in the order of {@code backends}. Never throws for a backend's failure; the reply
   * carries it. An unhealthy backend is not asked: its reply is the UNAVAILABLE naming it.
   */
  <T> List<Reply<T>> ask(Collection<Backend> backends, Function<Backend, T> question) {
    Context context = Context.current();
    List<Future<T>> futures = new ArrayList<>(backends.size());
    for (Backend backend : backends) {
      futures.add(executor.submit(context.wrap(() -> {
        health.require(backend.name());
        return question.apply(backend);
      })));
    }
    List<Reply<T>> replies = new ArrayList<>(backends.size());
    Deadline started = Deadline.after(0, TimeUnit.NANOSECONDS);
    int i = 0;
    for (Backend backend : backends) {
      Deadline caller = context.getDeadline();
      Deadline bound = bound(backend, started, caller);
      replies.add(await(backend, futures.get(i++), bound, bound != caller));
    }
    return replies;
  }

  /**
   * The caller's deadline, or the backend's call timeout when that is nearer: a frozen backend
   * must not hold a list or a lookup until the kubelet gives up.
   */
  private Deadline bound(Backend backend, Deadline started, Deadline caller) {
    Deadline own = started.offset(health.callTimeout(backend.name()).toNanos(), TimeUnit.NANOSECONDS);
    return caller == null ? own : caller.minimum(own);
  }

  /** Runs {@code task} on its own virtual thread, for work that outlives the calling handler (event streams). */
  void start(Runnable task) {
    executor.execute(task);
  }

  /** @param ownTimeout whether {@code deadline} is the backend's call timeout rather than the caller's deadline */
  private <T> Reply<T> await(Backend backend, Future<T> future, Deadline deadline, boolean ownTimeout) {
    try {
      T value = future.get(Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)), TimeUnit.NANOSECONDS);
      return new Reply<>(backend, value, null);
    } catch (ExecutionException e) {
      return new Reply<>(backend, null, e.getCause());
    } catch (TimeoutException e) {
      // A backend that ignores the deadline must not hold the caller past it.
      future.cancel(true);
      if (ownTimeout) {
        String reason = "backend %s did not answer within its call timeout of %d ms"
            .formatted(backend.name(), health.callTimeout(backend.name()).toMillis());
        health.markUnhealthy(backend.name(), reason);
        return new Reply<>(backend, null, new CrigateException.Unavailable(reason));
      }
      return new Reply<>(backend, null, new CrigateException.Unavailable(
          "backend %s did not answer before the deadline".formatted(backend.name())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      return new Reply<>(backend, null, new CrigateException.Unavailable("interrupted waiting for backend " + backend.name(), e));
    }
  }
}
