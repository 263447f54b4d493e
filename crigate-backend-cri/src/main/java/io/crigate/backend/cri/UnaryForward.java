package io.crigate.backend.cri;

import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One unary call to the runtime, completed from the channel's event loop: the reply completes
 * {@link #reply()} on the thread that decoded it, with no hand-off to a waiting thread.
 */
final class UnaryForward<R> extends ClientCall.Listener<R> {

  private final CompletableFuture<R> reply = new CompletableFuture<>();
  private final Function<StatusRuntimeException, RuntimeException> failure;
  private R value;

  private UnaryForward(Function<StatusRuntimeException, RuntimeException> failure) {
    this.failure = failure;
  }

  /** Starts {@code call} with {@code request}; {@code failure} turns a non-OK status into what the stage fails with. */
  static <Q, R> CompletableFuture<R> start(ClientCall<Q, R> call, Q request, Function<StatusRuntimeException, RuntimeException> failure) {
    UnaryForward<R> listener = new UnaryForward<>(failure);
    call.start(listener, new Metadata());
    // Two, so a runtime that wrongly streams a second message is seen as the protocol error it is.
    call.request(2);
    try {
      call.sendMessage(request);
      call.halfClose();
    } catch (RuntimeException e) {
      call.cancel("could not send the request", e);
      throw e;
    }
    return listener.reply;
  }

  @Override
  public void onMessage(R message) {
    value = message;
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    if (!status.isOk()) {
      reply.completeExceptionally(failure.apply(status.asRuntimeException(trailers)));
    } else if (value == null) {
      reply.completeExceptionally(Status.INTERNAL.withDescription("the runtime closed the call without a reply")
          .asRuntimeException());
    } else {
      reply.complete(value);
    }
  }
}
