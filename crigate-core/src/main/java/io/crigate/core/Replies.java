package io.crigate.core;

import io.grpc.stub.StreamObserver;
import java.util.List;
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
