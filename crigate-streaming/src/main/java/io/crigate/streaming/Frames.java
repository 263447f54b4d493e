package io.crigate.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;

/** Sending frames from a session thread, with the client's reading speed as the limit. */
final class Frames {

  private Frames() {}

  /**
   * Writes and flushes {@code frame}. Once Netty's outgoing buffer is past its high-water mark the
   * caller waits for this write, so output is never buffered faster than the client reads it.
   */
  static ChannelFuture send(Channel channel, Object frame) {
    ChannelFuture written = channel.writeAndFlush(frame);
    if (!channel.isWritable() && !channel.eventLoop().inEventLoop()) {
      written.awaitUninterruptibly();
    }
    return written;
  }

  /** Sends bytes on a numbered channel of the {@code channel.k8s.io} WebSocket framing: the number, then the bytes. */
  static ChannelFuture sendOnChannel(Channel channel, int number, byte[] data, int offset, int length) {
    ByteBuf message = channel.alloc().buffer(length + 1).writeByte(number).writeBytes(data, offset, length);
    return send(channel, new BinaryWebSocketFrame(message));
  }
}
