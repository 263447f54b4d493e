package io.crigate.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.util.ReferenceCountUtil;

/** The client's WebSocket messages that a session acts on; {@link #dispatch} answers pings. */
interface WebSocketFrameEvents {

  /** A binary message: its channel byte, then its data. */
  void received(ByteBuf content);

  /** The client's close frame: it sends nothing more, and the session answers with its own close. */
  void closedByClient();

  /** Routes one message read on the connection, then releases it. Text messages belong to the base64 subprotocols, which are not offered. */
  static void dispatch(ChannelHandlerContext ctx, Object msg, WebSocketFrameEvents events) {
    try {
      switch (msg) {
        case BinaryWebSocketFrame frame -> events.received(frame.content());
        case PingWebSocketFrame ping -> ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
        case CloseWebSocketFrame close -> events.closedByClient();
        default -> { }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }
}
