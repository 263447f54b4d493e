package io.crigate.ttrpc.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A ttrpc connection that owns a whole socket: frames straight on the byte stream. */
public final class ChannelTransport implements FrameTransport {

  private static final Logger LOG = LoggerFactory.getLogger(ChannelTransport.class);

  private final Channel channel;

  private ChannelTransport(Channel channel) {
    this.channel = channel;
  }

  /** Adds the frame codec to {@code channel} and hands its frames to the listener it creates. */
  public static ChannelTransport install(Channel channel, Function<FrameTransport, FrameListener> listeners) {
    ChannelTransport transport = new ChannelTransport(channel);
    FrameListener listener = listeners.apply(transport);
    ChannelPipeline pipeline = channel.pipeline();
    pipeline.addLast("ttrpc-frames", new Decoder());
    pipeline.addLast("ttrpc-connection", new Dispatch(transport, listener));
    return transport;
  }

  public Channel channel() {
    return channel;
  }

  @Override
  public void send(Frame frame) {
    channel.writeAndFlush(FrameCodec.encode(channel.alloc(), frame)).addListener(f -> {
      if (!f.isSuccess() && channel.isOpen()) {
        close("write failed: " + f.cause());
      }
    });
  }

  @Override
  public void close(String reason) {
    if (channel.isOpen()) {
      LOG.debug("closing ttrpc connection {}: {}", channel.remoteAddress(), reason);
      channel.close();
    }
  }

  @Override
  public ScheduledExecutorService timers() {
    return channel.eventLoop();
  }

  private static final class Decoder extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      FrameCodec.decode(in, out::add);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      decode(ctx, in, out);
      if (in.isReadable()) {
        LOG.warn("ttrpc connection {}: {}", ctx.channel().remoteAddress(), FrameCodec.truncation(in));
        in.skipBytes(in.readableBytes());
      }
    }
  }

  private static final class Dispatch extends ChannelInboundHandlerAdapter {
    private final ChannelTransport transport;
    private final FrameListener listener;

    Dispatch(ChannelTransport transport, FrameListener listener) {
      this.transport = transport;
      this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      listener.onFrame((Frame) msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      listener.onClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Throwable reason = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
      String why = reason instanceof BadFrameException ? "bad frame: " + reason.getMessage() : reason.toString();
      if (reason instanceof java.io.IOException) {
        LOG.debug("ttrpc connection {} failed: {}", ctx.channel().remoteAddress(), why);
      } else {
        LOG.warn("closing ttrpc connection {}: {}", ctx.channel().remoteAddress(), why);
      }
      transport.close(why);
    }
  }
}
