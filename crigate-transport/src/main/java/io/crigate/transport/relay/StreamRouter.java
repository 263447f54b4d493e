package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;

/**
 * Decides where one inbound gRPC stream goes, from its path and its first message, before any of
 * it is sent on. Runs on the event loop that read the stream: it must answer from memory.
 */
@FunctionalInterface
public interface StreamRouter {

  /**
   * @param path the request's {@code :path}, e.g. {@code /runtime.v1.RuntimeService/ContainerStatus}
   * @param firstMessage the first message's bytes without the gRPC length prefix (only valid during
   *     this call), or {@code null} when the stream ended before a whole message arrived
   */
  Route route(CharSequence path, ByteBuf firstMessage);
}
