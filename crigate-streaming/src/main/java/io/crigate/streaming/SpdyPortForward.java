package io.crigate.streaming;

import io.crigate.spi.config.PortNumber;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A port forward over SPDY/3.1 with {@code portforward.k8s.io}, as the kubelet proxies
 * {@code kubectl port-forward}: the connection lasts as long as the client keeps it, and each
 * forwarded connection is a pair of streams the client opens, an error stream and a data stream,
 * tied by their {@code requestID} header and naming the pod's port in their {@code port} header.
 * The pair is forwarded once both are open; a pair left half-open past the stream creation timeout
 * is told so on its error stream and closed.
 */
final class SpdyPortForward extends ForwardHandler implements SpdyFrameEvents {

  static final String PROTOCOL = "portforward.k8s.io";
  private static final Logger LOG = LoggerFactory.getLogger(SpdyPortForward.class);

  /** One forwarded connection while its streams arrive; touched on the event loop only. */
  private static final class Pair {
    final String requestId;
    int port;
    Integer dataStream;
    Integer errorStream;
    ChannelInput input;
    ScheduledFuture<?> deadline;

    Pair(String requestId) {
      this.requestId = requestId;
    }
  }

  private final Duration creationTimeout;
  private final Map<String, Pair> waiting = new HashMap<>();
  /** The client's data streams and what they feed; event loop only. */
  private final Map<Integer, ChannelInput> inputOf = new HashMap<>();
  /** Streams the client reset: nothing more is sent on them. Written on the event loop, read by forwarders. */
  private final Set<Integer> reset = ConcurrentHashMap.newKeySet();

  SpdyPortForward(ForwardRequest request, Duration creationTimeout) {
    super(request);
    this.creationTimeout = creationTimeout;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    SpdyFrameEvents.dispatch(ctx, msg, this);
  }

  @Override
  public void opened(SpdySynStreamFrame syn) {
    int streamId = syn.streamId();
    String type = syn.headers().getAsString("streamtype");
    String portHeader = syn.headers().getAsString("port");
    OptionalInt named = portHeader == null ? OptionalInt.empty() : PortNumber.parse(portHeader, 1);
    if (!"data".equals(type) && !"error".equals(type) || named.isEmpty()) {
      // as the kubelet: a stream that names no valid type or port is refused, not paired
      LOG.debug("{}: refusing stream {} of type {} for port {}", request.what(), streamId, type, portHeader);
      ctx.writeAndFlush(new DefaultSpdyRstStreamFrame(streamId, SpdyStreamStatus.REFUSED_STREAM));
      return;
    }
    ctx.writeAndFlush(SpdyStreams.reply(streamId, type));
    int port = named.getAsInt();
    String requestId = syn.headers().getAsString("requestid");
    if (requestId == null || requestId.isEmpty()) {
      // Clients before Kubernetes 1.6 sent no request id, but opened each pair's error and data
      // streams one after the other: ids 1 and 3, then 5 and 7, which a quarter maps to one number.
      requestId = "stream-" + streamId / 4;
    }
    Pair pair = waiting.computeIfAbsent(requestId, Pair::new);
    if ("data".equals(type)) {
      pair.port = port; // the data stream's port is the one forwarded, as the kubelet reads it
      pair.dataStream = streamId;
      pair.input = newInput();
      inputOf.put(streamId, pair.input);
    } else {
      pair.port = pair.port == 0 ? port : pair.port;
      pair.errorStream = streamId;
    }
    if (syn.isLast()) {
      endInput(streamId);
    }
    if (pair.dataStream != null && pair.errorStream != null) {
      waiting.remove(pair.requestId);
      if (pair.deadline != null) {
        pair.deadline.cancel(false);
      }
      int data = pair.dataStream;
      forward(pair.port, pair.input, data, pair.errorStream, () -> ctx.executor().execute(() -> inputOf.remove(data)));
    } else if (pair.deadline == null) {
      pair.deadline = ctx.executor().schedule(() -> abandon(pair), creationTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void abandon(Pair pair) {
    if (waiting.remove(pair.requestId) == null) {
      return;
    }
    LOG.info("{}: request {} for port {} opened one of its two streams within {}; closing it", request.what(),
        pair.requestId, pair.port, creationTimeout);
    if (pair.errorStream != null) {
      byte[] text = "timed out waiting for the data stream of request %s".formatted(pair.requestId)
          .getBytes(StandardCharsets.UTF_8);
      write(pair.errorStream, text, 0, text.length);
      close(pair.errorStream);
    }
    if (pair.dataStream != null) {
      forget(inputOf.remove(pair.dataStream));
      close(pair.dataStream);
    }
  }

  @Override
  public void reset(int streamId) {
    reset.add(streamId);
    endInput(streamId);
  }

  @Override
  public void received(SpdyDataFrame data) {
    ChannelInput input = inputOf.get(data.streamId());
    if (input != null) {
      input.offer(data.content());
    }
    if (data.isLast()) {
      endInput(data.streamId());
    }
  }

  private void endInput(int streamId) {
    ChannelInput input = inputOf.get(streamId);
    if (input != null) {
      input.end();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    waiting.values().forEach(pair -> {
      if (pair.deadline != null) {
        pair.deadline.cancel(false);
      }
    });
    super.channelInactive(ctx);
  }

  // ---- ChannelSink: a channel is a stream id here

  @Override
  public void write(int stream, byte[] data, int offset, int length) {
    if (!reset.contains(stream)) {
      Frames.send(ctx.channel(), new DefaultSpdyDataFrame(stream, Unpooled.copiedBuffer(data, offset, length)));
    }
  }

  @Override
  public void close(int stream) {
    if (!reset.contains(stream) && ctx.channel().isActive()) {
      Frames.send(ctx.channel(), new DefaultSpdyDataFrame(stream).setLast(true));
    }
  }
}
