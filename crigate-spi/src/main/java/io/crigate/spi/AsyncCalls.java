package io.crigate.spi;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking form of a backend, for backends that forward CRI calls to a remote runtime.
 * Core uses it for calls it only routes (status, stats, lists, start/stop...) and completes the
 * kubelet's call from the reply, on the I/O thread that delivered it; no thread waits in between.
 *
 * <p>The call must start without blocking: it runs on crigate's event loop. It inherits the
 * current {@link io.grpc.Context}, so the kubelet's deadline and cancellation reach the remote
 * runtime; crigate's own, shorter limit for a backend comes as {@code timeout} and must end the
 * call with {@code DEADLINE_EXCEEDED} when it passes (a grpc {@code CallOptions} deadline does both
 * with one timer; a derived {@code Context} would cost a second one on every call). Failures complete the stage exceptionally with the same kinds the blocking methods
 * throw ({@link CrigateException} or a remote runtime's {@link io.grpc.StatusRuntimeException}).
 */
public interface AsyncCalls {

  /**
   * Sends {@code request} as {@code method} of the CRI RuntimeService or ImageService.
   *
   * @param method a method of {@code RuntimeServiceGrpc} or {@code ImageServiceGrpc}
   * @param timeout how long the call may take at most, counted from now; empty: only the caller's deadline
   */
  <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request, Optional<Duration> timeout);

  /**
   * The unix socket of the gRPC CRI server this backend forwards every call to unchanged, if it
   * does. Core may then relay a routed call's HTTP/2 stream there directly, without calling
   * {@link #call}: the request and answer pass as bytes, the runtime's statuses untouched. Only a
   * CRI runtime that applies the list filters' state and label selectors itself may name one: core
   * relays unfiltered-by-id lists of a node's only backend without re-applying them.
   */
  default Optional<Path> passThrough() {
    return Optional.empty();
  }

  /**
   * Hears of a call core relayed to {@link #passThrough()} instead of calling {@link #call}, so
   * a wrapper that times calls sees those too.
   *
   * @param rpc the CRI method's bare name, e.g. {@code ContainerStatus}
   * @param code how it ended ({@code UNAVAILABLE} also when the runtime could not be reached)
   */
  default void relayed(String rpc, Status.Code code, long nanos) {}
}
