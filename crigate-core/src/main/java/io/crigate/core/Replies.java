package io.crigate.core;

import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * How the service adapters answer. Failures are not caught here: they propagate to
 * {@link GrpcErrors#interceptor()}, the one place that maps them.
 */
final class Replies {

  /**
   * Items per message of a streaming list. Small enough that a message of large items (stats with
   * per-container metrics) stays far below gRPC's 4 MiB default limit, large enough that a node's
   * whole list fits in a handful of messages.
   */
  static final int STREAM_CHUNK_ITEMS = 100;

  private Replies() {}

  /**
   * Answers from {@code reply} when it completes, on whichever thread completes it (for a forwarded
   * call, the event loop that read the backend's answer). A failure is mapped here, as the
   * interceptor only sees what handlers throw.
   */
  static <R> void async(StreamObserver<R> observer, CompletionStage<R> reply) {
    reply.whenComplete((response, failure) -> {
      if (failure == null) {
        unary(observer, response);
      } else {
        observer.onError(GrpcErrors.toStatus(failure));
      }
    });
  }

  /** Like {@link #chunked}, once {@code items} complete. */
  static <T, R> void chunkedAsync(StreamObserver<R> observer, CompletionStage<List<T>> items, Function<List<T>, R> message) {
    items.whenComplete((list, failure) -> {
      if (failure == null) {
        chunked(observer, list, message);
      } else {
        observer.onError(GrpcErrors.toStatus(failure));
      }
    });
  }

  static <R> void unary(StreamObserver<R> observer, R response) {
    observer.onNext(response);
    observer.onCompleted();
  }

  /** Streams {@code items} in chunks; an empty list still sends one empty message, so a reader never waits for nothing. */
  static <T, R> void chunked(StreamObserver<R> observer, List<T> items, Function<List<T>, R> message) {
    int from = 0;
    do {
      int to = Math.min(items.size(), from + STREAM_CHUNK_ITEMS);
      observer.onNext(message.apply(items.subList(from, to)));
      from = to;
    } while (from < items.size());
    observer.onCompleted();
  }
}
