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
    int i = 0;
    for (Backend backend : backends) {
      replies.add(await(backend, futures.get(i++), context.getDeadline()));
    }
    return replies;
  }

  /** Runs {@code task} on its own virtual thread, for work that outlives the calling handler (event streams). */
  void start(Runnable task) {
    executor.execute(task);
  }

  private static <T> Reply<T> await(Backend backend, Future<T> future, Deadline deadline) {
    try {
      T value = deadline == null ? future.get() : future.get(Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)), TimeUnit.NANOSECONDS);
      return new Reply<>(backend, value, null);
    } catch (ExecutionException e) {
      return new Reply<>(backend, null, e.getCause());
    } catch (TimeoutException e) {
      // A backend that ignores the deadline must not hold the caller past it.
      future.cancel(true);
      return new Reply<>(backend, null, new CrigateException.Unavailable(
          "backend %s did not answer before the deadline".formatted(backend.name())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      return new Reply<>(backend, null, new CrigateException.Unavailable("interrupted waiting for backend " + backend.name(), e));
    }
  }
}
