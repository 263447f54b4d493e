package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;

/**
 * One end of a relay on Netty's HTTP/2 codec, with no stream channels or frame objects: the calls
 * of its streams write through here. What a stream receives is given back to the peer (its flow
 * control window reopened) only once the other end has written it, so a slow reader slows the
 * writer instead of piling up frames in the relay. Writes are flushed once per read batch, so a
 * call's headers, data and trailers that arrived in one read leave in one write: when the
 * connection that read them finishes its batch, before its own flush (which carries its PING and
 * SETTINGS acknowledgements and window updates, none of them urgent), so a relayed answer leaves
 * first; and at the latest at the end of the event loop's turn, for writes no read caused.
 */
abstract class RelayConnection extends Http2ConnectionHandler {

  /** The connections of this event loop written to since its last flush of them. */
  private static final FastThreadLocal<ArrayList<RelayConnection>> UNFLUSHED = new FastThreadLocal<>() {
    @Override
    protected ArrayList<RelayConnection> initialValue() {
      return new ArrayList<>();
    }
  };

  private static final Runnable FLUSH_UNFLUSHED = RelayConnection::flushUnflushed;

  private ChannelHandlerContext ctx;
  private boolean flushQueued;

  RelayConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
    super(decoder, encoder, settings);
    connection().addListener(new Http2EventAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        streamClosed(stream.id());
      }
    });
  }

  /** The stream is gone on this connection: ended both ways, reset, or the connection closed. */
  abstract void streamClosed(int stream);

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
  }

  EventExecutor executor() {
    return ctx.executor();
  }

  /** Runs {@code task} on this connection's event loop: now if already there. */
  void onLoop(Runnable task) {
    if (ctx.executor().inEventLoop()) {
      task.run();
    } else {
      ctx.executor().execute(task);
    }
  }

  void headers(int stream, Http2Headers headers, boolean endStream) {
    encoder().writeHeaders(ctx, stream, headers, 0, endStream, ctx.voidPromise());
    flushSoon();
  }

  /**
   * Writes {@code data} (this connection's to release) on {@code stream}; once it is written,
   * {@code source} gets its window back on {@code sourceStream}.
   */
  void data(int stream, ByteBuf data, boolean endStream, RelayConnection source, int sourceStream) {
    int bytes = data.readableBytes();
    ChannelPromise written = ctx.newPromise();
    if (bytes > 0) {
      written.addListener(done -> source.consumed(sourceStream, bytes));
    }
    encoder().writeData(ctx, stream, data, 0, endStream, written);
    flushSoon();
  }

  void reset(int stream, Http2Error error) {
    if (connection().stream(stream) != null) {
      resetStream(ctx, stream, error.code(), ctx.voidPromise());
      flushSoon();
    }
  }

  /** {@code bytes} received on {@code stream} were passed on: the peer may send that much more. */
  void consumed(int stream, int bytes) {
    onLoop(() -> {
      Http2Stream open = connection().stream(stream);
      if (open == null) {
        return; // a closed stream's bytes were given back when it closed
      }
      try {
        if (decoder().flowController().consumeBytes(open, bytes)) {
          flushSoon(); // a WINDOW_UPDATE was written
        }
      } catch (Http2Exception e) {
        onError(ctx, false, e);
      }
    });
  }

  /**
   * What a connection reads, as calls: headers (with or without priority) and data, which keeps
   * its window until the call has passed it on.
   */
  abstract static class CallFrames extends Http2EventAdapter {

    /** The call {@code data} of {@code stream} goes to, or null when it goes nowhere. */
    abstract RelayedCall callOf(int stream, boolean endStream);

    /** Hands {@code data} (the call's to release and give back) to {@code call}. */
    abstract void pass(RelayedCall call, ByteBuf data, boolean endStream);

    @Override
    public final int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      RelayedCall call = callOf(streamId, endOfStream);
      if (call == null) {
        return data.readableBytes() + padding;
      }
      pass(call, data.retain(), endOfStream);
      return padding;
    }

    @Override
    public final void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
        short weight, boolean exclusive, int padding, boolean endStream) throws Http2Exception {
      onHeadersRead(ctx, streamId, headers, padding, endStream);
    }
  }

  private void flushSoon() {
    if (!flushQueued) {
      flushQueued = true;
      UNFLUSHED.get().add(this);
      ctx.executor().execute(FLUSH_UNFLUSHED);
    }
  }

  /** Flushes every connection of this event loop written to since its last flush. */
  private static void flushUnflushed() {
    ArrayList<RelayConnection> unflushed = UNFLUSHED.get();
    for (int i = 0; i < unflushed.size(); i++) {
      RelayConnection connection = unflushed.get(i);
      if (connection.flushQueued) {
        connection.flushQueued = false;
        connection.flush(connection.ctx);
      }
    }
    unflushed.clear();
  }

  /** Flushes what this batch (or an earlier one on this loop) relayed, then this connection's own. */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    flushUnflushed();
    super.channelReadComplete(ctx);
  }
}
