package io.crigate.streaming;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session over SPDY/3.1 with {@code v4.channel.k8s.io}, the protocol the kubelet and client-go
 * speak to a runtime's streaming server. The client opens one stream per channel, named by its
 * {@code streamtype} header; the session starts once every stream the request calls for is open.
 *
 * <p>No SPDY flow control: spdystream, on both ends of every Kubernetes connection, neither sends
 * WINDOW_UPDATE nor waits for one, so honouring windows would stall after 64 KiB. TCP and
 * {@link Frames#send} bound what is in flight instead.
 */
final class SpdyStreams extends SessionHandler implements SpdyFrameEvents {

  static final String PROTOCOL = "v4.channel.k8s.io";
  private static final Logger LOG = LoggerFactory.getLogger(SpdyStreams.class);
  /** Indexed by channel number. */
  private static final List<String> TYPES = List.of("stdin", "stdout", "stderr", "error", "resize");

  private final Duration creationTimeout;
  /** Stream id per channel number; read by the session thread, written on the event loop. */
  private final Map<Integer, Integer> streamOf = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> channelOf = new ConcurrentHashMap<>();
  private ScheduledFuture<?> creationDeadline;

  SpdyStreams(StreamRequest request, Duration creationTimeout) {
    super(request);
    this.creationTimeout = creationTimeout;
  }

  @Override
  String protocol() {
    return "SPDY/3.1 " + PROTOCOL;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    super.handlerAdded(ctx);
    creationDeadline = ctx.executor().schedule(() -> {
      LOG.info("{}: client opened streams {} but not all of {} within {}; closing", request.what(),
          channelOf.values(), expected(), creationTimeout);
      ctx.close();
    }, creationTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The channels the client must open, as the kubelet's server expects them for v4. */
  private Set<Integer> expected() {
    Set<Integer> channels = new HashSet<>(Set.of(ERROR));
    if (request.stdin()) {
      channels.add(STDIN);
    }
    if (request.stdout()) {
      channels.add(STDOUT);
    }
    if (request.stderr() && !request.tty()) {
      channels.add(STDERR);
    }
    if (request.tty()) {
      channels.add(RESIZE);
    }
    return channels;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    SpdyFrameEvents.dispatch(ctx, msg, this);
  }

  @Override
  public void opened(SpdySynStreamFrame syn) {
    String type = syn.headers().getAsString("streamtype");
    int channel = type == null ? -1 : TYPES.indexOf(type.toLowerCase(Locale.ROOT));
    ctx.writeAndFlush(reply(syn.streamId(), type));
    if (channel < 0) {
      LOG.debug("{}: ignoring stream {} of type {}", request.what(), syn.streamId(), type);
      return;
    }
    streamOf.put(channel, syn.streamId());
    channelOf.put(syn.streamId(), channel);
    if (syn.isLast()) {
      ended(syn.streamId());
    }
    if (creationDeadline != null && streamOf.keySet().containsAll(expected())) {
      creationDeadline.cancel(false);
      creationDeadline = null;
      session.start();
    }
  }

  /** Accepts a stream the client opened. */
  static SpdySynReplyFrame reply(int streamId, String type) {
    // Netty encodes a reply without headers as an empty header block, which spdystream cannot
    // decompress (it expects zlib data holding a count of 0): echo the stream type to give it one.
    SpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(streamId);
    reply.headers().set("streamtype", type == null ? "" : type);
    return reply;
  }

  @Override
  public void received(SpdyDataFrame data) {
    Integer channel = channelOf.get(data.streamId());
    if (channel != null) {
      ChannelInput input = input(channel);
      if (input != null) {
        input.offer(data.content());
      }
    }
    if (data.isLast()) {
      ended(data.streamId());
    }
  }

  @Override
  public void reset(int streamId) {
    ended(streamId);
  }

  /** The client will send no more on this stream. */
  private void ended(int streamId) {
    Integer channel = channelOf.get(streamId);
    ChannelInput input = channel == null ? null : input(channel);
    if (input != null) {
      input.end();
    }
  }

  private ChannelInput input(int channel) {
    return switch (channel) {
      case STDIN -> session.stdinInput();
      case RESIZE -> session.resizeInput();
      default -> null;
    };
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (creationDeadline != null) {
      creationDeadline.cancel(false);
    }
    super.channelInactive(ctx);
  }

  // ---- Outbound, called by the session thread

  @Override
  public void write(int channel, byte[] data, int offset, int length) {
    Integer stream = streamOf.get(channel);
    if (stream != null) {
      Frames.send(ctx.channel(), new DefaultSpdyDataFrame(stream, Unpooled.copiedBuffer(data, offset, length)));
    }
  }

  @Override
  public void close(int channel) {
    Integer stream = streamOf.get(channel);
    if (stream != null) {
      Frames.send(ctx.channel(), new DefaultSpdyDataFrame(stream).setLast(true));
    }
  }

  @Override
  public void finish(ExitStatus status) {
    if (!ctx.channel().isActive()) {
      return; // the client left, or the server is stopping: nobody to tell
    }
    Integer error = streamOf.get(ERROR);
    if (error == null) {
      ctx.close();
      return;
    }
    Frames.send(ctx.channel(), new DefaultSpdyDataFrame(error, Unpooled.wrappedBuffer(status.json())));
    Frames.send(ctx.channel(), new DefaultSpdyDataFrame(error).setLast(true)).addListener(ChannelFutureListener.CLOSE);
  }
}
