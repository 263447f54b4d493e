package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One inbound gRPC stream (the caller's side). It holds the request's frames until the first
 * message is whole, asks the {@link StreamRouter} where it goes, opens a stream there and from then
 * on passes frames both ways with only the stream changed: request headers, data, response headers,
 * data, trailers. Either side's reset or loss ends the other; each side reads only while the other
 * can take what it writes (HTTP/2 flow control does the rest). Everything runs on the inbound
 * stream's event loop.
 */
final class RelayedStream extends ChannelInboundHandlerAdapter {

  private static final int PREFIX_BYTES = 5;
  /** Requests routed by their content are small; a larger first message is passed on unread. */
  private static final long ROUTING_PEEK_LIMIT = 64 * 1024;

  private final StreamRouter router;
  private Channel caller;
  private Http2Headers requestHeaders;
  private boolean requestHeadersEnd;
  private long startNanos;
  private final ArrayDeque<Http2DataFrame> held = new ArrayDeque<>(2);
  private int heldBytes;
  private boolean routed;
  private CallWatch watch = CallWatch.NONE;
  private Channel upstream;
  private boolean responseStarted;
  private boolean ended;
  private ScheduledFuture<?> timer;

  RelayedStream(StreamRouter router) {
    this.router = router;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    caller = ctx.channel();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Http2DataFrame data) {
      if (upstream != null) {
        upstream.write(new DefaultHttp2DataFrame(data.content(), data.isEndStream()));
      } else {
        held.add(data);
        heldBytes += data.content().readableBytes();
        if (!routed) {
          routeWhenWhole(data.isEndStream());
        }
      }
    } else if (msg instanceof Http2HeadersFrame headers && requestHeaders == null) {
      startNanos = System.nanoTime();
      requestHeaders = headers.headers();
      requestHeadersEnd = headers.isEndStream();
      if (requestHeadersEnd) {
        route(null);
      }
    } else if (msg instanceof Http2HeadersFrame trailers && upstream != null) {
      upstream.write(new DefaultHttp2HeadersFrame(trailers.headers(), trailers.isEndStream()));
    } else {
      // a reset (the stream closes next, see channelInactive) or client trailers before routing
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (upstream != null) {
      upstream.flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (upstream != null) {
      upstream.config().setAutoRead(caller.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** The caller went away (reset, closed connection) or the call ended normally. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseHeld();
    if (!ended) {
      ended = true;
      cancelTimer();
      if (upstream != null) {
        upstream.close(); // resets the upstream stream (CANCEL)
      }
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(GrpcStatusFrames.INTERNAL, "relay failed: " + cause);
  }

  private void routeWhenWhole(boolean endStream) {
    if (heldBytes >= PREFIX_BYTES) {
      ByteBuf first = held.peekFirst().content();
      long length = first.readableBytes() >= PREFIX_BYTES ? first.getUnsignedInt(first.readerIndex() + 1) : -1;
      if (length > ROUTING_PEEK_LIMIT) {
        route(null); // not a request routed by its content; the call server judges its size
      } else if (length < 0 || heldBytes - PREFIX_BYTES >= length) {
        routeWhole((int) length);
      }
    }
    if (!routed && endStream) {
      route(null);
    }
  }

  /** {@code length} -1: the prefix itself is split over frames. */
  private void routeWhole(int length) {
    ByteBuf first = held.peekFirst().content();
    if (length >= 0 && first.readableBytes() - PREFIX_BYTES >= length) {
      route(first.slice(first.readerIndex() + PREFIX_BYTES, length));
      return;
    }
    CompositeByteBuf joined = caller.alloc().compositeBuffer(held.size());
    try {
      for (Http2DataFrame frame : held) {
        joined.addComponent(true, frame.content().retainedDuplicate());
      }
      long whole = joined.getUnsignedInt(joined.readerIndex() + 1);
      if (joined.readableBytes() - PREFIX_BYTES < whole) {
        return; // wait for more
      }
      route(joined.slice(joined.readerIndex() + PREFIX_BYTES, (int) whole));
    } finally {
      joined.release();
    }
  }

  private void route(ByteBuf firstMessage) {
    routed = true;
    Route route = router.route(requestHeaders.path(), firstMessage);
    watch = route.watch();
    route.upstream().open(new UpstreamSide()).addListener(this::opened);
  }

  private void opened(Future<? super Http2StreamChannel> opening) {
    if (!caller.eventLoop().inEventLoop()) {
      caller.eventLoop().execute(() -> opened(opening));
      return;
    }
    if (!opening.isSuccess()) {
      fail(GrpcStatusFrames.UNAVAILABLE, watch.lost(opening.cause().getMessage()));
      return;
    }
    Channel stream = (Channel) opening.getNow();
    if (ended) {
      stream.close();
      return;
    }
    upstream = stream;
    upstream.config().setAutoRead(caller.isWritable());
    upstream.write(new DefaultHttp2HeadersFrame(requestHeaders, requestHeadersEnd));
    while (!held.isEmpty()) {
      Http2DataFrame data = held.poll();
      upstream.write(new DefaultHttp2DataFrame(data.content(), data.isEndStream()));
    }
    upstream.flush();
    long own = watch.timeoutNanos();
    if (own > 0 && own < GrpcStatusFrames.timeoutNanos(requestHeaders)) {
      timer = caller.eventLoop().schedule(this::timedOut, own, TimeUnit.NANOSECONDS);
    }
  }

  private void timedOut() {
    if (!ended) {
      fail(GrpcStatusFrames.UNAVAILABLE, watch.timedOut());
    }
  }

  /** Ends the caller's call with {@code status} and drops the upstream stream. */
  private void fail(int status, String description) {
    if (ended) {
      return;
    }
    ended = true;
    cancelTimer();
    if (upstream != null) {
      upstream.close();
    }
    caller.writeAndFlush(GrpcStatusFrames.ending(responseStarted, status, description));
    watch.ended(status, System.nanoTime() - startNanos);
  }

  private void responseFrame(Object msg) {
    if (ended) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof Http2HeadersFrame headers) {
      responseStarted = true;
      caller.write(new DefaultHttp2HeadersFrame(headers.headers(), headers.isEndStream()));
      if (headers.isEndStream()) {
        finish(GrpcStatusFrames.statusOf(headers.headers()));
      }
    } else if (msg instanceof Http2DataFrame data) {
      caller.write(new DefaultHttp2DataFrame(data.content(), data.isEndStream()));
      if (data.isEndStream()) {
        finish(GrpcStatusFrames.INTERNAL); // no trailers: grpc reads that as an internal error
      }
    } else if (msg instanceof Http2ResetFrame reset) {
      fail(reset.errorCode() == Http2Error.REFUSED_STREAM.code() ? GrpcStatusFrames.UNAVAILABLE
          : reset.errorCode() == Http2Error.CANCEL.code() ? GrpcStatusFrames.CANCELLED : GrpcStatusFrames.INTERNAL,
          "upstream reset the stream (HTTP/2 error " + reset.errorCode() + ")");
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void finish(int status) {
    ended = true;
    cancelTimer();
    caller.flush();
    watch.ended(status, System.nanoTime() - startNanos);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void releaseHeld() {
    while (!held.isEmpty()) {
      held.poll().release();
    }
  }

  /** The upstream stream's side: every event goes back to the caller's event loop. */
  private final class UpstreamSide extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (caller.eventLoop().inEventLoop()) {
        responseFrame(msg);
      } else {
        caller.eventLoop().execute(() -> responseFrame(msg));
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      caller.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      caller.config().setAutoRead(ctx.channel().isWritable());
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      Runnable lost = () -> fail(GrpcStatusFrames.UNAVAILABLE, watch.lost("connection closed before the call ended"));
      if (caller.eventLoop().inEventLoop()) {
        lost.run();
      } else {
        caller.eventLoop().execute(lost);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
