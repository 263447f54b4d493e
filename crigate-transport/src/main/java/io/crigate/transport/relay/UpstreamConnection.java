package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

/**
 * The relay's client end of one HTTP/2 connection to a gRPC server: streams are opened for
 * {@link RelayedCall}s, and what the server answers goes back to them.
 */
final class UpstreamConnection extends FrameConnection {

  /** Header lists of a server the relay chose itself (crigate's call server, a runtime): generous. */
  private static final int MAX_UPSTREAM_HEADER_LIST_BYTES = 64 * 1024;
  /** As Netty's HTTP/2 client: a server that went away gets this long to finish its open streams. */
  private static final long GRACE_MILLIS = 30_000;

  private final IntObjectMap<RelayedCall> calls = new IntObjectHashMap<>();

  UpstreamConnection() {
    super(false, Integer.MAX_VALUE, MAX_UPSTREAM_HEADER_LIST_BYTES, GRACE_MILLIS);
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
      if (!canOpenStream()) {
        call.notOpened(acceptsStreams() ? "too many concurrent calls" : "the connection is closing");
        return;
      }
      int stream = openStream();
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

  @Override
  void headersRead(int stream, Http2Headers headers, boolean endStream) {
    RelayedCall call = callOf(stream, endStream);
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
  void goAwayRead(int lastStream) {
    closeGracefully();
  }

  @Override
  void rstStreamRead(int stream, long errorCode) {
    RelayedCall call = calls.remove(stream);
    if (call != null) {
      call.upstreamReset(errorCode);
    }
  }
}
