package io.crigate.spi;

import io.grpc.MethodDescriptor;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking form of a backend, for backends that forward CRI calls to a remote runtime.
 * Core uses it for calls it only routes (status, stats, lists, start/stop...) and completes the
 * kubelet's call from the reply, on the I/O thread that delivered it; no thread waits in between.
 *
 * <p>The call must start without blocking: it runs on crigate's event loop. It inherits the
 * current {@link io.grpc.Context}, so the kubelet's deadline and cancellation reach the remote
 * runtime. Failures complete the stage exceptionally with the same kinds the blocking methods
 * throw ({@link CrigateException} or a remote runtime's {@link io.grpc.StatusRuntimeException}).
 */
public interface AsyncCalls {

  /**
   * Sends {@code request} as {@code method} of the CRI RuntimeService or ImageService.
   *
   * @param method a method of {@code RuntimeServiceGrpc} or {@code ImageServiceGrpc}
   */
  <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request);
}
