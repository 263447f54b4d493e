package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One end of a relay: an HTTP/2 connection read and written as frames, with no codec stack
 * (RFC 9113). Header blocks are the only thing decoded (HPACK, to learn a request's path) and
 * encoded again for the other side; DATA payloads pass on as slices of the buffer they were read
 * into. The connection keeps what HTTP/2 requires of it and nothing more: SETTINGS and PING are
 * answered in place, each stream's and the connection's windows both ways, GOAWAY and RST_STREAM.
 *
 * <p>What a stream receives is given back to the peer (its window reopened) only once the other
 * end has written it to its socket, so a slow reader slows the writer instead of piling frames up
 * in the relay; a connection whose own socket is full stops reading until it drains. Writes
 * collect in one buffer and leave in one write and flush per read batch: when the connection
 * that read them completes its read, and at the latest at the end of the event loop's turn.
 * Everything runs on the connection's event loop.
 */
abstract class FrameConnection extends ChannelDuplexHandler implements FrameCodec.Frames {

  private static final Logger LOG = LoggerFactory.getLogger(FrameConnection.class);

  /** What the relay accepts of a header list (SETTINGS_MAX_HEADER_LIST_SIZE): a larger one resets its stream. */
  static final int MAX_HEADER_LIST_BYTES = 8 * 1024;
  /** A compressed header block held while CONTINUATION frames arrive; a larger one ends the connection. */
  static final int MAX_HEADER_BLOCK_BYTES = 64 * 1024;
  /** Peer header table sizes above HPACK's default are not used: the relay's tables stay small. */
  private static final int MAX_ENCODER_TABLE_BYTES = 4096;
  /** A payload up to this size is copied next to its frame header instead of written as a buffer of its own. */
  private static final int COPY_BELOW_BYTES = 1024;

  /** The connections of this event loop written to since their last flush. */
  private static final FastThreadLocal<ArrayList<FrameConnection>> UNFLUSHED = new FastThreadLocal<>() {
    @Override
    protected ArrayList<FrameConnection> initialValue() {
      return new ArrayList<>();
    }
  };
  private static final Runnable FLUSH_UNFLUSHED = FrameConnection::flushUnflushed;

  private final boolean server;
  private final long maxHeaderListBytes;
  private final long[] ownSettings;
  private final int maxPeerStreams;
  private final long graceMillis;
  private final FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, MAX_HEADER_BLOCK_BYTES);
  private final DefaultHttp2HeadersDecoder hpackIn;
  private final DefaultHttp2HeadersEncoder hpackOut = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
  private final IntObjectMap<Stream> streams = new IntObjectHashMap<>();

  private ChannelHandlerContext ctx;
  private ByteBuf cumulation;
  private boolean prefaceRead;
  private boolean closed;

  // what leaves in the next write: frames, and whose windows reopen once they are on the socket
  private ByteBuf out;
  private final Consumptions written = new Consumptions();
  private boolean flushQueued;

  // receiving: how much the peer may still send, and what was passed on but not yet given back
  private int connectionWindow = FrameCodec.DEFAULT_WINDOW_BYTES;
  private int connectionUnacked;
  // sending: what the peer allows
  private long connectionSendWindow = FrameCodec.DEFAULT_WINDOW_BYTES;
  private int peerInitialWindow = FrameCodec.DEFAULT_WINDOW_BYTES;
  private int peerMaxFrameBytes = FrameCodec.DEFAULT_MAX_FRAME_BYTES;
  private long peerMaxStreams = Long.MAX_VALUE;

  private int lastPeerStream;
  private int nextLocalStream = 1;
  private volatile boolean goAwayReceived;
  private volatile boolean goAwaySent;
  private ChannelPromise closing;
  private ScheduledFuture<?> closeTimer;

  /**
   * @param server whether this end accepted the connection (it expects the client preface)
   * @param maxPeerStreams streams the peer may have open here at once (the server's limit)
   * @param maxHeaderListBytes the largest header list decoded; a larger one resets its stream
   * @param graceMillis how long a close lets open streams finish after GOAWAY
   */
  FrameConnection(boolean server, int maxPeerStreams, long maxHeaderListBytes, long graceMillis) {
    this.server = server;
    this.maxPeerStreams = maxPeerStreams;
    this.maxHeaderListBytes = maxHeaderListBytes;
    this.graceMillis = graceMillis;
    this.hpackIn = new DefaultHttp2HeadersDecoder(false, maxHeaderListBytes);
    try {
      hpackIn.configuration().maxHeaderListSize(maxHeaderListBytes, Math.max(maxHeaderListBytes, MAX_HEADER_BLOCK_BYTES));
    } catch (Http2Exception e) {
      throw new IllegalArgumentException(e);
    }
    this.ownSettings = server
        ? new long[] {FrameCodec.SETTINGS_MAX_CONCURRENT_STREAMS, maxPeerStreams,
            FrameCodec.SETTINGS_INITIAL_WINDOW_SIZE, RelaySettings.INITIAL_WINDOW_BYTES,
            FrameCodec.SETTINGS_MAX_HEADER_LIST_SIZE, maxHeaderListBytes}
        : new long[] {FrameCodec.SETTINGS_ENABLE_PUSH, 0,
            FrameCodec.SETTINGS_INITIAL_WINDOW_SIZE, RelaySettings.INITIAL_WINDOW_BYTES,
            FrameCodec.SETTINGS_MAX_HEADER_LIST_SIZE, maxHeaderListBytes};
  }

  // ---- what a subclass does with what arrives

  /** Headers (request, response or trailers) arrived on an open stream. */
  abstract void headersRead(int stream, Http2Headers headers, boolean endStream);

  /** The call {@code stream}'s data goes to, or null when it goes nowhere (its window returns at once). */
  abstract RelayedCall callOf(int stream, boolean endStream);

  /** Hands {@code data} (the call's to release and give back through {@link #consumed}) to {@code call}. */
  abstract void pass(RelayedCall call, ByteBuf data, boolean endStream);

  /** The peer reset {@code stream}; {@link #streamClosed} follows. */
  abstract void rstStreamRead(int stream, long errorCode);

  /** The stream is gone: ended both ways, reset either way, or the connection closed. */
  abstract void streamClosed(int stream);

  /** The peer goes away; streams above {@code lastStream} it never saw have been closed already. */
  void goAwayRead(int lastStream) {}

  // ---- Netty

  /**
   * The connection's opening (preface, settings, the connection window) goes first into the
   * write buffer, so it precedes whatever a call writes as soon as the socket connects.
   */
  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    ByteBuf start = out(64);
    if (!server) {
      FrameCodec.writePreface(start);
    }
    FrameCodec.writeSettings(start, ownSettings);
    // the connection's own window starts at 65,535 whatever the settings say
    FrameCodec.writeWindowUpdate(start, 0, RelaySettings.INITIAL_WINDOW_BYTES - FrameCodec.DEFAULT_WINDOW_BYTES);
    connectionWindow = RelaySettings.INITIAL_WINDOW_BYTES;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    flushNow();
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf data)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf in = data;
    if (cumulation != null) {
      in = cumulation;
      in.ensureWritable(data.readableBytes());
      in.writeBytes(data);
      data.release();
      cumulation = null;
    }
    try {
      if (closed) {
        return;
      }
      if (server && !prefaceRead) {
        if (in.readableBytes() < FrameCodec.prefaceLength()) {
          cumulation = leftover(in);
          return;
        }
        if (!FrameCodec.isPreface(in, in.readerIndex())) {
          throw new FrameCodec.ConnectionError(FrameCodec.PROTOCOL_ERROR, "no HTTP/2 client preface");
        }
        in.skipBytes(FrameCodec.prefaceLength());
        prefaceRead = true;
      }
      reader.read(in, ctx.alloc(), this);
      if (in.isReadable()) {
        cumulation = leftover(in);
      }
    } catch (FrameCodec.ConnectionError e) {
      connectionError(e.code, e.getMessage());
    } finally {
      in.release();
    }
  }

  /** A copy of the partial frame at the end of {@code in}, with room for the rest of it. */
  private ByteBuf leftover(ByteBuf in) {
    int have = in.readableBytes();
    int need = have >= FrameCodec.HEADER_BYTES
        ? FrameCodec.HEADER_BYTES + in.getUnsignedMedium(in.readerIndex())
        : FrameCodec.HEADER_BYTES + FrameCodec.DEFAULT_MAX_FRAME_BYTES;
    ByteBuf copy = ctx.alloc().buffer(Math.max(have, need));
    copy.writeBytes(in);
    return copy;
  }

  /** Flushes what this batch (and earlier ones on this loop) relayed, then reads on. */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    flushUnflushed();
    ctx.fireChannelReadComplete();
  }

  /** A connection whose own socket is full reads nothing more until it drains: nothing piles up here. */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closed = true;
    for (Stream stream : new ArrayList<>(streams.values())) {
      closeStream(stream);
    }
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
    reader.release();
    if (out != null) {
      out.release();
      out = null;
    }
    written.giveBack();
    hpackOut.close();
    if (closeTimer != null) {
      closeTimer.cancel(false);
    }
    if (closing != null) {
      closing.trySuccess();
    }
    super.channelInactive(ctx);
  }

  /**
   * A close lets open streams finish: GOAWAY first, then the socket closes when the last stream
   * ends or the grace period is over. A second close, or one with nothing open, closes at once.
   */
  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (closing != null || closed || !ctx.channel().isActive()) {
      ctx.close(promise);
      return;
    }
    sendGoAway(FrameCodec.NO_ERROR);
    flushNow();
    if (streams.isEmpty()) {
      ctx.close(promise);
      return;
    }
    closing = promise;
    closeTimer = ctx.executor().schedule(() -> {
      ctx.close();
    }, graceMillis, TimeUnit.MILLISECONDS);
  }

  // ---- for the calls: writing

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

  /** Closes through this handler's own close: GOAWAY, and open streams may finish. */
  void closeGracefully() {
    ctx.channel().close();
  }

  boolean isOpen(int stream) {
    return streams.containsKey(stream);
  }

  /** Whether a stream of this end may be opened now: the peer neither goes away nor is at its limit. */
  boolean canOpenStream() {
    return !closed && !goAwayReceived && !goAwaySent && closing == null && streams.size() < peerMaxStreams;
  }

  /** Whether this connection takes new streams (read from any thread). */
  boolean acceptsStreams() {
    return ctx != null && ctx.channel().isActive() && !goAwayReceived && !goAwaySent;
  }

  /** Opens a stream of this (client) end; -1 when the ids are used up. */
  int openStream() {
    int id = nextLocalStream;
    if (id < 0) {
      return -1;
    }
    nextLocalStream += 2;
    Stream stream = new Stream(id, peerInitialWindow);
    streams.put(id, stream);
    return id;
  }

  void headers(int id, Http2Headers headers, boolean endStream) {
    Stream stream = streams.get(id);
    if (stream == null || stream.localEnded) {
      return;
    }
    if (stream.pending != null) {
      stream.pending.add(new Pending(headers, endStream));
      return;
    }
    writeHeaders(stream, headers, endStream);
  }

  /**
   * Writes {@code data} (this connection's to release) on {@code stream}, as far as the peer's
   * windows allow now and the rest when they open; once it is on the socket, {@code source} gets
   * its window back on {@code sourceStream}.
   */
  void data(int id, ByteBuf data, boolean endStream, FrameConnection source, int sourceStream) {
    Stream stream = streams.get(id);
    if (stream == null || stream.localEnded) {
      source.consumed(sourceStream, data.readableBytes());
      data.release();
      return;
    }
    int bytes = data.readableBytes();
    if (stream.pending == null && bytes <= peerMaxFrameBytes && bytes <= stream.sendWindow && bytes <= connectionSendWindow) {
      writeData(stream, data, endStream, source, sourceStream); // the usual case: the windows are open
      return;
    }
    Pending pending = new Pending(data, endStream, source, sourceStream);
    if (stream.pending == null && send(stream, pending)) {
      return;
    }
    if (stream.pending == null) {
      stream.pending = new ArrayDeque<>(4);
    }
    stream.pending.add(pending);
  }

  /** Resets {@code stream} with {@code error}; {@link #streamClosed} follows. */
  void reset(int id, Http2Error error) {
    Stream stream = streams.get(id);
    if (stream != null) {
      FrameCodec.writeRstStream(out(16), id, error.code());
      flushSoon();
      closeStream(stream);
    }
  }

  /** {@code bytes} received on {@code stream} were passed on: the peer may send that much more. */
  void consumed(int id, int bytes) {
    if (ctx.executor().inEventLoop()) {
      giveBack(id, bytes);
    } else {
      ctx.executor().execute(() -> giveBack(id, bytes));
    }
  }

  private void giveBack(int id, int bytes) {
    if (closed || bytes == 0) {
      return;
    }
    connectionUnacked += bytes;
    if (connectionUnacked >= RelaySettings.INITIAL_WINDOW_BYTES / 2) {
      FrameCodec.writeWindowUpdate(out(16), 0, connectionUnacked);
      connectionWindow += connectionUnacked;
      connectionUnacked = 0;
      flushSoon();
    }
    Stream stream = streams.get(id);
    if (stream != null && !stream.remoteEnded) {
      stream.unacked += bytes;
      if (stream.unacked >= RelaySettings.INITIAL_WINDOW_BYTES / 2) {
        FrameCodec.writeWindowUpdate(out(16), id, stream.unacked);
        stream.window += stream.unacked;
        stream.unacked = 0;
        flushSoon();
      }
    }
  }

  private void writeHeaders(Stream stream, Http2Headers headers, boolean endStream) {
    ByteBuf buffer = out(256);
    int at = buffer.writerIndex();
    buffer.writeZero(FrameCodec.HEADER_BYTES);
    try {
      hpackOut.encodeHeaders(stream.id, headers, buffer);
    } catch (Http2Exception e) {
      buffer.writerIndex(at);
      connectionError(FrameCodec.COMPRESSION_ERROR, "cannot encode headers: " + e.getMessage());
      return;
    }
    FrameCodec.frameHeaderBlock(buffer, at, stream.id, endStream, peerMaxFrameBytes);
    flushSoon();
    if (endStream) {
      localEnded(stream);
    }
  }

  /** Sends as much of {@code pending} as the windows allow; whether all of it went. */
  private boolean send(Stream stream, Pending pending) {
    if (pending.headers != null) {
      writeHeaders(stream, pending.headers, pending.endStream);
      return true;
    }
    ByteBuf data = pending.data;
    while (true) {
      int left = data.readableBytes();
      int chunk = (int) Math.min(left, Math.min(peerMaxFrameBytes, Math.min(stream.sendWindow, connectionSendWindow)));
      if (chunk <= 0 && left > 0) {
        return false;
      }
      boolean last = chunk == left;
      writeData(stream, last ? data : data.readRetainedSlice(chunk), last && pending.endStream, pending.source,
          pending.sourceStream);
      if (last) {
        return true;
      }
    }
  }

  private void writeData(Stream stream, ByteBuf data, boolean endStream, FrameConnection source, int sourceStream) {
    int bytes = data.readableBytes();
    stream.sendWindow -= bytes;
    connectionSendWindow -= bytes;
    ByteBuf buffer = out(FrameCodec.HEADER_BYTES + (bytes < COPY_BELOW_BYTES ? bytes : 0));
    FrameCodec.writeDataHeader(buffer, stream.id, bytes, endStream);
    if (bytes < COPY_BELOW_BYTES) {
      buffer.writeBytes(data);
      data.release();
    } else {
      ctx.write(buffer, ctx.voidPromise());
      out = null;
      ctx.write(data, ctx.voidPromise());
    }
    if (bytes > 0) {
      written.add(source, sourceStream, bytes);
    }
    flushSoon();
    if (endStream) {
      localEnded(stream);
    }
  }

  /** Sends what waited for {@code stream}'s window, as far as it goes now. */
  private void resume(Stream stream) {
    while (stream.pending != null) {
      Pending next = stream.pending.pollFirst();
      if (next == null) {
        stream.pending = null;
        return;
      }
      if (!send(stream, next)) {
        stream.pending.addFirst(next); // what is left of it waits for the next window
        return;
      }
    }
  }

  private ByteBuf out(int room) {
    if (out == null) {
      out = ctx.alloc().buffer(Math.max(256, room));
    }
    return out;
  }

  // ---- frames read

  @Override
  public void data(int id, ByteBuf data, int flowControlled, boolean endStream) {
    if (flowControlled > connectionWindow) {
      throw new FrameCodec.ConnectionError(FrameCodec.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
    }
    connectionWindow -= flowControlled;
    Stream stream = streams.get(id);
    if (stream == null || stream.remoteEnded) {
      giveBack(id, flowControlled); // a stream reset or ended before this frame: its bytes are dropped
      return;
    }
    if (flowControlled > stream.window) {
      giveBack(id, flowControlled);
      reset(id, Http2Error.FLOW_CONTROL_ERROR);
      return;
    }
    stream.window -= flowControlled;
    if (endStream) {
      stream.remoteEnded = true;
    }
    int padding = flowControlled - data.readableBytes();
    RelayedCall call = callOf(id, endStream);
    if (call == null) {
      giveBack(id, flowControlled);
    } else {
      if (padding > 0) {
        giveBack(id, padding);
      }
      pass(call, data.retainedSlice(), endStream);
    }
    if (endStream && stream.localEnded) {
      closeStream(stream);
    }
  }

  @Override
  public void headers(int id, ByteBuf block, boolean endStream) {
    Http2Headers headers;
    try {
      headers = hpackIn.decodeHeaders(id, block);
    } catch (Http2Exception.StreamException tooLarge) {
      // decoded to its end, so the HPACK tables stay in step: only this stream is refused
      if (server && id > lastPeerStream) {
        lastPeerStream = id;
      }
      Stream stream = streams.get(id);
      if (stream != null) {
        reset(id, Http2Error.PROTOCOL_ERROR);
      } else {
        FrameCodec.writeRstStream(out(16), id, FrameCodec.PROTOCOL_ERROR);
        flushSoon();
      }
      return;
    } catch (Http2Exception e) {
      throw new FrameCodec.ConnectionError(FrameCodec.COMPRESSION_ERROR, "header block: " + e.getMessage());
    }
    Stream stream = streams.get(id);
    if (stream == null) {
      if (!server || (id & 1) == 0 || id <= lastPeerStream) {
        if (server && (id & 1) == 0) {
          throw new FrameCodec.ConnectionError(FrameCodec.PROTOCOL_ERROR, "even stream id " + id + " from a client");
        }
        return; // a stream that is already gone here (reset by this end)
      }
      lastPeerStream = id;
      if (goAwaySent || closing != null || streams.size() >= maxPeerStreams) {
        FrameCodec.writeRstStream(out(16), id, FrameCodec.REFUSED_STREAM);
        flushSoon();
        return;
      }
      stream = new Stream(id, peerInitialWindow);
      streams.put(id, stream);
    } else if (stream.remoteEnded) {
      return;
    }
    if (endStream) {
      stream.remoteEnded = true;
    }
    headersRead(id, headers, endStream);
    if (endStream && stream.localEnded && streams.get(id) == stream) {
      closeStream(stream);
    }
  }

  @Override
  public void rstStream(int id, long code) {
    Stream stream = streams.get(id);
    if (stream != null) {
      rstStreamRead(id, code);
      closeStream(stream);
    }
  }

  @Override
  public void settings(boolean ack, ByteBuf payload) {
    if (ack) {
      return;
    }
    for (int at = payload.readerIndex(); at < payload.writerIndex(); at += 6) {
      int id = payload.getUnsignedShort(at);
      long value = payload.getUnsignedInt(at + 2);
      switch (id) {
        case FrameCodec.SETTINGS_HEADER_TABLE_SIZE -> {
          try {
            hpackOut.configuration().maxHeaderTableSize(Math.min(value, MAX_ENCODER_TABLE_BYTES));
          } catch (Http2Exception e) {
            throw new FrameCodec.ConnectionError(FrameCodec.PROTOCOL_ERROR, e.getMessage());
          }
        }
        case FrameCodec.SETTINGS_MAX_CONCURRENT_STREAMS -> peerMaxStreams = value;
        case FrameCodec.SETTINGS_INITIAL_WINDOW_SIZE -> {
          if (value > FrameCodec.MAX_WINDOW_BYTES) {
            throw new FrameCodec.ConnectionError(FrameCodec.FLOW_CONTROL_ERROR, "initial window " + value);
          }
          int delta = (int) value - peerInitialWindow;
          peerInitialWindow = (int) value;
          for (Stream stream : streams.values()) {
            stream.sendWindow += delta;
          }
        }
        case FrameCodec.SETTINGS_MAX_FRAME_SIZE -> {
          if (value < FrameCodec.DEFAULT_MAX_FRAME_BYTES || value > 0xff_ffff) {
            throw new FrameCodec.ConnectionError(FrameCodec.PROTOCOL_ERROR, "max frame size " + value);
          }
          peerMaxFrameBytes = (int) value;
        }
        default -> {
          // ENABLE_PUSH (nothing is pushed either way), MAX_HEADER_LIST_SIZE (advisory), unknown ids
        }
      }
    }
    FrameCodec.writeSettingsAck(out(16));
    flushSoon();
    resumeAll();
  }

  @Override
  public void ping(boolean ack, long data) {
    if (!ack) {
      FrameCodec.writePing(out(32), true, data);
      flushSoon();
    }
  }

  @Override
  public void goAway(int lastStream, long code) {
    goAwayReceived = true;
    if (!server) {
      for (Stream stream : new ArrayList<>(streams.values())) {
        if (stream.id > lastStream) {
          closeStream(stream); // never seen by the peer: the call fails over to a new connection's error path
        }
      }
    }
    goAwayRead(lastStream);
  }

  @Override
  public void windowUpdate(int id, int increment) {
    if (increment == 0) {
      if (id == 0) {
        throw new FrameCodec.ConnectionError(FrameCodec.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
      }
      reset(id, Http2Error.PROTOCOL_ERROR);
      return;
    }
    if (id == 0) {
      connectionSendWindow += increment;
      if (connectionSendWindow > FrameCodec.MAX_WINDOW_BYTES) {
        throw new FrameCodec.ConnectionError(FrameCodec.FLOW_CONTROL_ERROR, "connection window over 2^31-1");
      }
      resumeAll();
      return;
    }
    Stream stream = streams.get(id);
    if (stream != null) {
      stream.sendWindow += increment;
      if (stream.sendWindow > FrameCodec.MAX_WINDOW_BYTES) {
        reset(id, Http2Error.FLOW_CONTROL_ERROR);
        return;
      }
      resume(stream);
    }
  }

  private void resumeAll() {
    if (connectionSendWindow <= 0) {
      return;
    }
    for (Stream stream : new ArrayList<>(streams.values())) {
      if (stream.pending != null && streams.get(stream.id) == stream) {
        resume(stream);
      }
    }
  }

  // ---- endings

  private void localEnded(Stream stream) {
    stream.localEnded = true;
    if (stream.remoteEnded) {
      closeStream(stream);
    }
  }

  private void closeStream(Stream stream) {
    if (streams.remove(stream.id) != stream) {
      return;
    }
    ArrayDeque<Pending> pending = stream.pending;
    stream.pending = null;
    if (pending != null) {
      for (Pending unsent : pending) {
        if (unsent.data != null) {
          unsent.source.consumed(unsent.sourceStream, unsent.data.readableBytes());
          unsent.data.release();
        }
      }
    }
    // what the peer sent and the relay has not passed on yet comes back through consumed()
    streamClosed(stream.id);
    if (closing != null && streams.isEmpty() && !closed) {
      flushNow();
      ctx.close(closing);
    }
  }

  private void sendGoAway(long code) {
    if (!goAwaySent) {
      goAwaySent = true;
      FrameCodec.writeGoAway(out(32), lastPeerStream, code);
    }
  }

  /** The peer broke the protocol: GOAWAY with {@code code}, and the connection closes. */
  private void connectionError(long code, String why) {
    if (closed) {
      return;
    }
    LOG.warn("relay connection {} closed: {} (HTTP/2 error {})", ctx.channel(), why, code);
    sendGoAway(code);
    flushNow();
    closed = true;
    ctx.close(); // from here, past this handler's graceful close
  }

  // ---- flushing

  private void flushSoon() {
    if (!flushQueued) {
      flushQueued = true;
      UNFLUSHED.get().add(this);
      ctx.executor().execute(FLUSH_UNFLUSHED);
    }
  }

  private void flushNow() {
    flushQueued = false;
    ByteBuf buffer = out;
    out = null;
    if (written.isEmpty()) {
      if (buffer != null) {
        ctx.write(buffer, ctx.voidPromise());
      }
    } else {
      Consumptions done = written.takeAll();
      ctx.write(buffer != null ? buffer : Unpooled.EMPTY_BUFFER).addListener(done);
    }
    ctx.flush();
  }

  /** Flushes every connection of this event loop written to since its last flush. */
  private static void flushUnflushed() {
    ArrayList<FrameConnection> unflushed = UNFLUSHED.get();
    for (int i = 0; i < unflushed.size(); i++) {
      FrameConnection connection = unflushed.get(i);
      if (connection.flushQueued) {
        connection.flushNow();
      }
    }
    unflushed.clear();
  }

  // ---- state

  private static final class Stream {
    final int id;
    /** What the peer may still send on it. */
    int window = RelaySettings.INITIAL_WINDOW_BYTES;
    int unacked;
    /** What this end may still send on it. */
    long sendWindow;
    boolean localEnded;
    boolean remoteEnded;
    /** Frames waiting for a window, in order; null when none wait. */
    ArrayDeque<Pending> pending;

    Stream(int id, int sendWindow) {
      this.id = id;
      this.sendWindow = sendWindow;
    }
  }

  /** Data or trailers that wait behind data for a window. */
  private static final class Pending {
    final ByteBuf data;
    final Http2Headers headers;
    final boolean endStream;
    final FrameConnection source;
    final int sourceStream;

    Pending(ByteBuf data, boolean endStream, FrameConnection source, int sourceStream) {
      this.data = data;
      this.headers = null;
      this.endStream = endStream;
      this.source = source;
      this.sourceStream = sourceStream;
    }

    Pending(Http2Headers headers, boolean endStream) {
      this.data = null;
      this.headers = headers;
      this.endStream = endStream;
      this.source = null;
      this.sourceStream = 0;
    }
  }

  /** Bytes written for other connections' streams, given back to them once the write is done. */
  private static final class Consumptions implements ChannelFutureListener {
    private final List<FrameConnection> sources = new ArrayList<>(4);
    private int[] streams = new int[4];
    private int[] bytes = new int[4];

    void add(FrameConnection source, int stream, int count) {
      int at = sources.size();
      if (at > 0 && sources.get(at - 1) == source && streams[at - 1] == stream) {
        bytes[at - 1] += count;
        return;
      }
      if (at == streams.length) {
        streams = java.util.Arrays.copyOf(streams, at * 2);
        bytes = java.util.Arrays.copyOf(bytes, at * 2);
      }
      sources.add(source);
      streams[at] = stream;
      bytes[at] = count;
    }

    boolean isEmpty() {
      return sources.isEmpty();
    }

    Consumptions takeAll() {
      Consumptions taken = new Consumptions();
      taken.sources.addAll(sources);
      taken.streams = java.util.Arrays.copyOf(streams, sources.size());
      taken.bytes = java.util.Arrays.copyOf(bytes, sources.size());
      sources.clear();
      return taken;
    }

    /** Written or failed alike: the sources' windows must not stay closed. */
    void giveBack() {
      for (int i = 0; i < sources.size(); i++) {
        sources.get(i).consumed(streams[i], bytes[i]);
      }
      sources.clear();
    }

    @Override
    public void operationComplete(io.netty.channel.ChannelFuture future) {
      giveBack();
    }
  }
}
