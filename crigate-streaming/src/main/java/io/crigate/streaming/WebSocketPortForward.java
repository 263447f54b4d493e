package io.crigate.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A port forward over WebSocket, as the kubelet serves it to {@code crigate ctl port-forward} and
 * other direct clients: the ports are the URL's {@code port} query parameters, known at the
 * handshake, and the i-th port has channel 2i for data both ways and 2i+1 for the server's error
 * text. Each channel's first two bytes from the server name its port (little endian). The
 * connection ends once every port's forward has.
 */
final class WebSocketPortForward extends ForwardHandler implements WebSocketFrameEvents {

  /** The subprotocol with binary framing; clients that offer none get the same framing. */
  static final String PROTOCOL = "v4.channel.k8s.io";
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

  private final List<Integer> ports;
  /** What the client sends to each port, by the port's place in the URL. */
  private final List<ChannelInput> portInputs = new ArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicBoolean closing = new AtomicBoolean();

  WebSocketPortForward(ForwardRequest request, List<Integer> ports) {
    super(request);
    this.ports = List.copyOf(ports);
  }

  /** Called once the handshake is done: every port's channels exist from it on. */
  void start() {
    running.set(ports.size());
    for (int i = 0; i < ports.size(); i++) {
      int port = ports.get(i);
      byte[] prefix = {(byte) port, (byte) (port >>> 8)};
      write(2 * i, prefix, 0, 2);
      write(2 * i + 1, prefix, 0, 2);
      portInputs.add(newInput());
    }
    for (int i = 0; i < ports.size(); i++) {
      forward(ports.get(i), portInputs.get(i), 2 * i, 2 * i + 1, this::oneEnded);
    }
  }

  private void oneEnded() {
    if (running.decrementAndGet() == 0) {
      closeConnection();
    }
  }

  private void closeConnection() {
    if (closing.compareAndSet(false, true) && ctx.channel().isActive()) {
      Frames.send(ctx.channel(), new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    WebSocketFrameEvents.dispatch(ctx, msg, this);
  }

  /**
   * What the forwards still have to say (an error's text) goes before the answering close, which
   * {@link #oneEnded} sends once they end; a forward slow to notice its client left is not waited for.
   */
  @Override
  public void closedByClient() {
    portInputs.forEach(ChannelInput::end);
    ctx.executor().schedule(this::closeConnection, CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void received(ByteBuf content) {
    if (!content.isReadable()) {
      return;
    }
    int channel = content.readUnsignedByte();
    // the client writes data only, on even channels; odd ones are the server's error channels
    if (channel % 2 == 0 && channel / 2 < portInputs.size()) {
      portInputs.get(channel / 2).offer(content);
    }
  }

  // ---- ChannelSink

  @Override
  public void write(int channel, byte[] data, int offset, int length) {
    Frames.sendOnChannel(ctx.channel(), channel, data, offset, length);
  }

  @Override
  public void close(int channel) {
    // v4 framing cannot close one channel; the connection's end closes them all (oneEnded)
  }
}
