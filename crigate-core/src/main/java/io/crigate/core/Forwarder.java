package io.crigate.core;

import io.crigate.spi.Backend;
import io.grpc.Context;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Forwards a call to the backend that owns its sandbox or container. When ownership is on record
 * (the hot path) this is a hash lookup and a non-blocking backend call on the current event loop.
 * On a miss every backend must be asked, which blocks, so that part runs on a virtual thread.
 */
final class Forwarder {

  private final Owners owners;
  private final BackendCalls calls;
  private final Executor offLoop;

  Forwarder(Owners owners, BackendCalls calls, Executor offLoop) {
    this.owners = owners;
    this.calls = calls;
    this.offLoop = offLoop;
  }

  <Q, R> CompletionStage<R> toContainer(String id, BackendCall<Q, R> call, Q request) {
    return to(owners.recordedContainerOwner(id), () -> owners.ofContainer(id), call, request);
  }

  <Q, R> CompletionStage<R> toSandbox(String id, BackendCall<Q, R> call, Q request) {
    return to(owners.recordedSandboxOwner(id), () -> owners.ofSandbox(id), call, request);
  }

  /** Runs blocking {@code work} on a virtual thread inside the caller's gRPC context. */
  <T> CompletionStage<T> offLoop(Supplier<T> work) {
    Context context = Context.current();
    return CompletableFuture.supplyAsync(() -> {
      Context previous = context.attach();
      try {
        return work.get();
      } finally {
        context.detach(previous);
      }
    }, offLoop);
  }

  private <Q, R> CompletionStage<R> to(Optional<Backend> recorded, Supplier<Backend> probe, BackendCall<Q, R> call, Q request) {
    if (recorded.isPresent()) {
      return calls.call(recorded.get(), call, request);
    }
    Context context = Context.current();
    return offLoop(probe).thenCompose(owner -> {
      Context previous = context.attach();
      try {
        return calls.call(owner, call, request);
      } finally {
        context.detach(previous);
      }
    });
  }
}
