package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

/**
 * A gRPC client's HTTP/2 connection to the relay: each stream it opens becomes a
 * {@link RelayedCall}, and what that call's upstream answers is written back here.
 */
final class CallerConnection extends RelayConnection {

  private final StreamRouter router;
  private final IntObjectMap<RelayedCall> calls = new IntObjectHashMap<>();

  private CallerConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
      StreamRouter router) {
    super(decoder, encoder, settings);
    this.router = router;
  }

  /** The handler of one accepted connection. */
  static CallerConnection create(StreamRouter router, int maxStreams, long graceMillis) {
    return new Builder(router).build(maxStreams, graceMillis);
  }

  StreamRouter router() {
    return router;
  }

  @Override
  void streamClosed(int stream) {
    RelayedCall call = calls.remove(stream);
    if (call != null) {
      call.callerGone();
    }
  }

  /** Ends the call on {@code stream} with a gRPC status of the relay's own. */
  void end(int stream, boolean headersSent, int status, String description) {
    if (connection().stream(stream) != null) { // else the caller reset it already
      headers(stream, GrpcHeaders.ending(headersSent, status, description), true);
    }
  }

  private final class Frames extends CallFrames {

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endStream) {
      // a gRPC client sends headers once per stream (it has no trailers)
      if (!calls.containsKey(streamId)) {
        RelayedCall call = new RelayedCall(CallerConnection.this, streamId, headers, endStream);
        calls.put(streamId, call);
        call.start();
      }
    }

    @Override
    RelayedCall callOf(int stream, boolean endStream) {
      return calls.get(stream);
    }

    @Override
    void pass(RelayedCall call, ByteBuf data, boolean endStream) {
      call.requestData(data, endStream);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      streamClosed(streamId);
    }
  }

  private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<CallerConnection, Builder> {
    private final StreamRouter router;

    Builder(StreamRouter router) {
      this.router = router;
    }

    CallerConnection build(int maxStreams, long graceMillis) {
      server(true);
      initialSettings(RelaySettings.settings().maxConcurrentStreams(maxStreams));
      gracefulShutdownTimeoutMillis(graceMillis);
      return build();
    }

    @Override
    protected CallerConnection build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      CallerConnection handler = new CallerConnection(decoder, encoder, settings, router);
      frameListener(handler.new Frames());
      return handler;
    }
  }
}
