package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

/**
 * The relay's client end of one HTTP/2 connection to a gRPC server: streams are opened for
 * {@link RelayedCall}s, and what the server answers goes back to them.
 */
final class UpstreamConnection extends RelayConnection {

  private final IntObjectMap<RelayedCall> calls = new IntObjectHashMap<>();

  private UpstreamConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
    super(decoder, encoder, settings);
  }

  static UpstreamConnection create() {
    return new Builder().build();
  }

  /** Whether new streams may be opened here: connected and not told to go away. */
  boolean acceptsStreams() {
    return !connection().goAwayReceived() && !connection().goAwaySent();
  }

  @Override
  void streamClosed(int stream) {
    RelayedCall call = calls.remove(stream);
    if (call != null) {
      call.upstreamClosed();
    }
  }

  /** Opens a stream for {@code call} on this connection's event loop, and tells the call its id. */
  void open(RelayedCall call) {
    onLoop(() -> {
      if (!acceptsStreams() || !connection().local().canOpenStream()) {
        call.notOpened(acceptsStreams() ? "too many concurrent calls" : "the connection is closing");
        return;
      }
      int stream = connection().local().incrementAndGetNextStreamId();
      if (stream < 0) {
        call.notOpened("stream ids exhausted on this connection");
        return;
      }
      calls.put(stream, call);
      call.opened(this, stream);
    });
  }

  /** The call on {@code stream} ended on the caller's side: the server is told to stop (CANCEL). */
  void cancel(int stream) {
    onLoop(() -> {
      calls.remove(stream);
      reset(stream, Http2Error.CANCEL);
    });
  }

  private final class Frames extends CallFrames {

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endStream) {
      RelayedCall call = callOf(streamId, endStream);
      if (call != null) {
        call.responseHeaders(headers, endStream);
      }
    }

    /** The stream's last frame: the call hears nothing more from here, not even the close. */
    @Override
    RelayedCall callOf(int stream, boolean endStream) {
      return endStream ? calls.remove(stream) : calls.get(stream);
    }

    @Override
    void pass(RelayedCall call, ByteBuf data, boolean endStream) {
      call.responseData(data, endStream);
    }

    /** A server shutting down: its open streams may finish, then the connection closes; new ones go to a new connection. */
    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
      ctx.channel().close(); // through this handler's own close, which waits for the open streams
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      RelayedCall call = calls.remove(streamId);
      if (call != null) {
        call.upstreamReset(errorCode);
      }
    }
  }

  private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<UpstreamConnection, Builder> {

    @Override
    protected UpstreamConnection build() {
      server(false);
      initialSettings(RelaySettings.settings());
      return super.build();
    }

    @Override
    protected UpstreamConnection build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      UpstreamConnection handler = new UpstreamConnection(decoder, encoder, settings);
      frameListener(handler.new Frames());
      return handler;
    }
  }
}
