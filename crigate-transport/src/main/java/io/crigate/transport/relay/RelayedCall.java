package io.crigate.transport.relay;

import io.crigate.transport.UnixSocketChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One relayed gRPC call: a stream of the caller's connection and, once routed, a stream of an
 * upstream connection. It holds the request until the first message is whole, asks the
 * {@link StreamRouter} where it goes, then passes request headers, data, response headers, data and
 * trailers on as they come, with only the stream id changed. Either side's reset or loss ends the
 * other; an answer over crigate's message limit ends the call with RESOURCE_EXHAUSTED. Runs on the
 * caller connection's event loop, which is also the upstream's when they share one (crigate runs a
 * single I/O thread); events from another loop are handed over.
 */
final class RelayedCall {

  private static final int PREFIX_BYTES = 5;
  /** Requests routed by their content are small; a larger first message is passed on unread. */
  private static final long ROUTING_PEEK_LIMIT = 64 * 1024;

  private final CallerConnection caller;
  private final int callerStream;
  private final Http2Headers requestHeaders;
  private boolean requestEnded;
  private final long startNanos = System.nanoTime();
  private final ArrayDeque<ByteBuf> held = new ArrayDeque<>(2);
  private int heldBytes;
  private boolean routed;
  private CallWatch watch = CallWatch.NONE;
  private UpstreamConnection upstream;
  private int upstreamStream;
  private final MessageSizeLimit answerLimit = new MessageSizeLimit(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES);
  private boolean responseStarted;
  private boolean ended;
  private ScheduledFuture<?> timer;

  RelayedCall(CallerConnection caller, int callerStream, Http2Headers requestHeaders, boolean endStream) {
    this.caller = caller;
    this.callerStream = callerStream;
    this.requestHeaders = requestHeaders;
    this.requestEnded = endStream;
  }

  /** Called once the caller's connection knows this call: a request without a body is routed now. */
  void start() {
    if (requestEnded) {
      route(null);
    }
  }

  // ---- the caller's side (on the caller's loop)

  /** Request data; {@code data} is this call's to release and give back to the caller's window. */
  void requestData(ByteBuf data, boolean endStream) {
    requestEnded |= endStream;
    if (ended) {
      drop(data);
      return;
    }
    if (upstream != null) {
      passRequest(data, endStream);
      return;
    }
    held.add(data);
    heldBytes += data.readableBytes();
    if (!routed) {
      routeWhenWhole();
    }
  }

  /** The caller reset its stream or its connection went away. */
  void callerGone() {
    releaseHeld();
    if (!ended) {
      ended = true;
      cancelTimer();
      if (upstream != null) {
        upstream.cancel(upstreamStream);
      }
    }
  }

  private void routeWhenWhole() {
    if (heldBytes >= PREFIX_BYTES) {
      ByteBuf first = held.peekFirst();
      long length = first.readableBytes() >= PREFIX_BYTES ? first.getUnsignedInt(first.readerIndex() + 1) : -1;
      if (length > ROUTING_PEEK_LIMIT) {
        route(null); // not a request routed by its content; the call server judges its size
      } else if (length < 0 || heldBytes - PREFIX_BYTES >= length) {
        routeWhole(length);
      }
    }
    if (!routed && requestEnded) {
      route(null);
    }
  }

  /** {@code length} -1: the prefix itself is split over frames. */
  private void routeWhole(long length) {
    ByteBuf first = held.peekFirst();
    if (length >= 0 && first.readableBytes() - PREFIX_BYTES >= length) {
      route(first.slice(first.readerIndex() + PREFIX_BYTES, (int) length));
      return;
    }
    CompositeByteBuf joined = first.alloc().compositeBuffer(held.size());
    try {
      for (ByteBuf data : held) {
        joined.addComponent(true, data.retainedDuplicate());
      }
      long whole = joined.getUnsignedInt(joined.readerIndex() + 1);
      if (joined.readableBytes() - PREFIX_BYTES >= whole) {
        route(joined.slice(joined.readerIndex() + PREFIX_BYTES, (int) whole));
      }
    } finally {
      joined.release();
    }
  }

  private void route(ByteBuf firstMessage) {
    routed = true;
    Route route = caller.router().route(requestHeaders.path(), firstMessage);
    watch = route.watch();
    route.upstream().open(this);
  }

  private void passRequest(ByteBuf data, boolean endStream) {
    UpstreamConnection to = upstream;
    int stream = upstreamStream;
    to.onLoop(() -> to.data(stream, data, endStream, caller, callerStream));
  }

  // ---- the upstream's side (each hands itself to the caller's loop)

  /** The upstream stream is open and its id is {@code stream}: send what was held. Upstream's loop. */
  void opened(UpstreamConnection connection, int stream) {
    if (!caller.executor().inEventLoop()) {
      // the request went out only once it is all here: the caller's loop owns it
      caller.executor().execute(() -> openedOnCallersLoop(connection, stream));
      return;
    }
    openedOnCallersLoop(connection, stream);
  }

  private void openedOnCallersLoop(UpstreamConnection connection, int stream) {
    if (ended) {
      releaseHeld();
      connection.cancel(stream);
      return;
    }
    upstream = connection;
    upstreamStream = stream;
    boolean bodyFollows = !held.isEmpty() || !requestEnded;
    connection.onLoop(() -> connection.headers(stream, requestHeaders, !bodyFollows));
    while (!held.isEmpty()) {
      passRequest(held.poll(), requestEnded && held.isEmpty());
    }
    heldBytes = 0;
    long own = watch.timeoutNanos();
    if (own > 0 && own < GrpcHeaders.timeoutNanos(requestHeaders)) {
      timer = caller.executor().schedule(this::timedOut, own, TimeUnit.NANOSECONDS);
    }
  }

  /** No stream could be opened there. */
  void notOpened(String why) {
    if (!caller.executor().inEventLoop()) {
      caller.executor().execute(() -> notOpened(why));
      return;
    }
    releaseHeld();
    fail(GrpcHeaders.UNAVAILABLE, watch.lost(why));
  }

  void responseHeaders(Http2Headers headers, boolean endStream) {
    if (!caller.executor().inEventLoop()) {
      caller.executor().execute(() -> responseHeaders(headers, endStream));
      return;
    }
    if (ended) {
      return;
    }
    responseStarted = true;
    if (endStream) {
      finish(GrpcHeaders.statusOf(headers));
    }
    caller.headers(callerStream, headers, endStream);
  }

  /** Response data; {@code data} is this call's to release and give back to the upstream's window. */
  void responseData(ByteBuf data, boolean endStream) {
    if (!caller.executor().inEventLoop()) {
      caller.executor().execute(() -> responseData(data, endStream));
      return;
    }
    if (ended) {
      upstream.consumed(upstreamStream, data.readableBytes());
      data.release();
      return;
    }
    long oversized = answerLimit.oversized(data);
    if (oversized >= 0) {
      upstream.consumed(upstreamStream, data.readableBytes());
      data.release();
      fail(GrpcHeaders.RESOURCE_EXHAUSTED, "the answer of %d bytes exceeds crigate's message limit of %d bytes"
          .formatted(oversized, answerLimit.limitBytes()));
      return;
    }
    if (endStream) {
      finish(GrpcHeaders.INTERNAL); // no trailers: grpc reads that as an internal error
    }
    caller.data(callerStream, data, endStream, upstream, upstreamStream);
  }

  void upstreamReset(long errorCode) {
    if (!caller.executor().inEventLoop()) {
      caller.executor().execute(() -> upstreamReset(errorCode));
      return;
    }
    fail(errorCode == Http2Error.REFUSED_STREAM.code() ? GrpcHeaders.UNAVAILABLE
        : errorCode == Http2Error.CANCEL.code() ? GrpcHeaders.CANCELLED : GrpcHeaders.INTERNAL,
        "upstream reset the stream (HTTP/2 error " + errorCode + ")");
  }

  /** The upstream stream closed; a call not ended by then lost its connection. */
  void upstreamClosed() {
    if (!caller.executor().inEventLoop()) {
      caller.executor().execute(this::upstreamClosed);
      return;
    }
    fail(GrpcHeaders.UNAVAILABLE, watch.lost("connection closed before the call ended"));
  }

  // ---- endings

  private void timedOut() {
    timer = null;
    if (!ended) {
      fail(GrpcHeaders.UNAVAILABLE, watch.timedOut());
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
      upstream.cancel(upstreamStream);
    }
    caller.end(callerStream, responseStarted, status, description);
    watch.ended(status, System.nanoTime() - startNanos);
  }

  /** The upstream ended the call; its last frame is written next. */
  private void finish(int status) {
    ended = true;
    cancelTimer();
    watch.ended(status, System.nanoTime() - startNanos);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** Request data that goes nowhere still gives its window back. */
  private void drop(ByteBuf data) {
    caller.consumed(callerStream, data.readableBytes());
    data.release();
  }

  private void releaseHeld() {
    while (!held.isEmpty()) {
      drop(held.poll());
    }
    heldBytes = 0;
  }
}
