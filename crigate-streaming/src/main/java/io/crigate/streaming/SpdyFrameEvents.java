package io.crigate.streaming;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.spdy.DefaultSpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * The client's SPDY frames that a session acts on. {@link #dispatch} answers the rest as
 * spdystream expects, on both kinds of session.
 */
interface SpdyFrameEvents {

  void opened(SpdySynStreamFrame syn);

  void received(SpdyDataFrame data);

  /** The client reset the stream: it neither sends nor reads more on it. */
  void reset(int streamId);

  /**
   * Routes one frame read on the connection, then releases it. Pings with odd ids come from the
   * client (SPDY numbering) and are echoed, as spdystream does; SETTINGS, WINDOW_UPDATE and
   * HEADERS need nothing, since no Kubernetes peer uses SPDY flow control (see SpdyStreams).
   */
  static void dispatch(ChannelHandlerContext ctx, Object msg, SpdyFrameEvents events) {
    try {
      switch (msg) {
        case SpdySynStreamFrame syn -> events.opened(syn);
        case SpdyDataFrame data -> events.received(data);
        case SpdyRstStreamFrame rst -> events.reset(rst.streamId());
        case SpdyPingFrame ping when (ping.id() & 1) == 1 -> ctx.writeAndFlush(new DefaultSpdyPingFrame(ping.id()));
        case SpdyGoAwayFrame goAway -> ctx.close();
        default -> { }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }
}
