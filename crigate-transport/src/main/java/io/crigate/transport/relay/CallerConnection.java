package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

/**
 * A gRPC client's HTTP/2 connection to the relay: each stream it opens becomes a
 * {@link RelayedCall}, and what that call's upstream answers is written back here.
 */
final class CallerConnection extends FrameConnection {

  private final StreamRouter router;
  private final IntObjectMap<RelayedCall> calls = new IntObjectHashMap<>();

  /** The handler of one accepted connection. */
  CallerConnection(StreamRouter router, int maxStreams, long graceMillis) {
    super(true, maxStreams, MAX_HEADER_LIST_BYTES, graceMillis);
    this.router = router;
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
    if (isOpen(stream)) { // else the caller reset it already
      headers(stream, GrpcHeaders.ending(headersSent, status, description), true);
    }
  }

  @Override
  void headersRead(int stream, Http2Headers headers, boolean endStream) {
    // a gRPC client sends headers once per stream (it has no trailers)
    if (!calls.containsKey(stream)) {
      RelayedCall call = new RelayedCall(this, stream, headers, endStream);
      calls.put(stream, call);
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
  void rstStreamRead(int stream, long errorCode) {
    streamClosed(stream);
  }
}
