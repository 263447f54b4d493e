package io.crigate.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session over WebSocket with the {@code channel.k8s.io} family of subprotocols, which kubectl
 * uses since Kubernetes 1.30: every binary message starts with its channel number. v5 adds channel
 * 255, on which {@code [255, n]} closes channel n (kubectl closes stdin that way).
 */
final class WebSocketStreams extends SessionHandler implements WebSocketFrameEvents {

  static final String V5 = "v5.channel.k8s.io";
  static final String V4 = "v4.channel.k8s.io";
  static final String V1 = "channel.k8s.io";
  static final String SUBPROTOCOLS = String.join(",", V5, V4, V1);
  private static final Logger LOG = LoggerFactory.getLogger(WebSocketStreams.class);
  private static final int CLOSE_CHANNEL = 255;

  private final String protocol;

  /** @param protocol the negotiated subprotocol; empty when the client offered none we know (v1 framing) */
  WebSocketStreams(StreamRequest request, String protocol) {
    super(request);
    this.protocol = protocol;
  }

  @Override
  String protocol() {
    return "WebSocket " + (protocol.isEmpty() ? V1 : protocol);
  }

  /** Every channel exists from the handshake on, so the session starts with the connection. */
  void start() {
    session.start();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    WebSocketFrameEvents.dispatch(ctx, msg, this);
  }

  @Override
  public void closedByClient() {
    session.stdinInput().end();
    ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE)).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void received(ByteBuf content) {
    if (!content.isReadable()) {
      return;
    }
    int channel = content.readUnsignedByte();
    switch (channel) {
      case STDIN -> session.stdinInput().offer(content);
      case RESIZE -> session.resizeInput().offer(content);
      case CLOSE_CHANNEL -> {
        if (V5.equals(protocol) && content.isReadable()) {
          int closed = content.readUnsignedByte();
          if (closed == STDIN) {
            session.stdinInput().end();
          } else if (closed == RESIZE) {
            session.resizeInput().end();
          }
        }
      }
      default -> LOG.debug("{}: ignoring a message on channel {}", request.what(), channel);
    }
  }

  // ---- Outbound, called by the session thread

  @Override
  public void write(int channel, byte[] data, int offset, int length) {
    Frames.sendOnChannel(ctx.channel(), channel, data, offset, length);
  }

  @Override
  public void close(int channel) {
    if (V5.equals(protocol)) {
      Frames.send(ctx.channel(), new BinaryWebSocketFrame(ctx.alloc().buffer(2).writeByte(CLOSE_CHANNEL)
          .writeByte(channel)));
    }
  }

  @Override
  public void finish(ExitStatus status) {
    if (!ctx.channel().isActive()) {
      return; // the client left, or the server is stopping: nobody to tell
    }
    // channel.k8s.io (v1) has no status object: its error channel carries only an error's text.
    boolean structured = V5.equals(protocol) || V4.equals(protocol);
    byte[] payload = structured ? status.json() : status.text();
    if (payload.length > 0) {
      write(ERROR, payload, 0, payload.length);
    }
    Frames.send(ctx.channel(), new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
