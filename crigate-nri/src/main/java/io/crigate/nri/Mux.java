package io.crigate.nri;

import io.crigate.ttrpc.transport.BadFrameException;
import io.crigate.ttrpc.transport.Frame;
import io.crigate.ttrpc.transport.FrameCodec;
import io.crigate.ttrpc.transport.FrameListener;
import io.crigate.ttrpc.transport.FrameTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NRI's socket multiplexer: several ttrpc connections over one unix socket, each chunk prefixed by
 * its connection id and length (both uint32, big-endian). Connection 1 carries the Plugin service,
 * connection 2 the Runtime service.
 */
final class Mux {

  static final int PLUGIN_SERVICE_CONN = 1;
  static final int RUNTIME_SERVICE_CONN = 2;

  private static final Logger LOG = LoggerFactory.getLogger(Mux.class);
  private static final int HEADER_BYTES = 8;
  /** Go's mux reads each connection through a 4096-byte buffer: no chunk may be larger. */
  static final int MAX_CHUNK = 4096;

  private Mux() {
  }

  /**
   * Puts the multiplexer on {@code channel}; {@code connections} maps each connection id to the
   * ttrpc side (server or client) that serves it.
   */
  static void install(Channel channel, Map<Integer, Function<FrameTransport, FrameListener>> connections) {
    Map<Integer, Logical> logical = new HashMap<>();
    connections.forEach((id, factory) -> {
      Logical l = new Logical(channel, id);
      l.listener = factory.apply(l);
      logical.put(id, l);
    });
    channel.pipeline().addLast("nri-mux", new Decoder());
    channel.pipeline().addLast("nri-conns", new Dispatch(logical));
  }

  /** One muxed chunk as read off the socket. */
  private record Chunk(int conn, ByteBuf bytes) {
  }

  private static final class Decoder extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      while (in.readableBytes() >= HEADER_BYTES) {
        long length = in.getUnsignedInt(in.readerIndex() + 4);
        if (length > Frame.MAX_PAYLOAD + Frame.HEADER_BYTES) {
          throw new BadFrameException("mux chunk of %d bytes on connection %d is larger than any ttrpc frame"
              .formatted(length, in.getUnsignedInt(in.readerIndex())));
        }
        if (in.readableBytes() < HEADER_BYTES + length) {
          return;
        }
        int conn = in.readInt();
        in.skipBytes(4);
        out.add(new Chunk(conn, in.readRetainedSlice((int) length)));
      }
    }
  }

  private static final class Dispatch extends ChannelInboundHandlerAdapter {
    private final Map<Integer, Logical> connections;

    Dispatch(Map<Integer, Logical> connections) {
      this.connections = connections;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Chunk chunk = (Chunk) msg;
      try {
        Logical l = connections.get(chunk.conn());
        if (l == null) {
          throw new BadFrameException("data for unknown mux connection " + chunk.conn());
        }
        l.accept(chunk.bytes());
      } finally {
        chunk.bytes().release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      connections.values().forEach(Logical::closed);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Throwable reason = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
      if (reason instanceof java.io.IOException) {
        LOG.debug("NRI connection failed: {}", reason.toString());
      } else {
        LOG.warn("closing NRI connection: {}", reason instanceof BadFrameException ? "bad frame: " + reason.getMessage() : reason);
      }
      ctx.close();
    }
  }

  /** One ttrpc connection inside the socket. */
  private static final class Logical implements FrameTransport {
    private final Channel channel;
    private final int id;
    private final ByteBuf pending;
    FrameListener listener;

    Logical(Channel channel, int id) {
      this.channel = channel;
      this.id = id;
      this.pending = channel.alloc().buffer();
    }

    void accept(ByteBuf bytes) {
      pending.writeBytes(bytes);
      FrameCodec.decode(pending, listener::onFrame);
      pending.discardReadBytes();
    }

    void closed() {
      if (pending.isReadable()) {
        LOG.warn("NRI mux connection {}: {}", id, FrameCodec.truncation(pending));
      }
      pending.release();
      listener.onClosed();
    }

    /** Writes the frame as one buffer of chunks, so frames from concurrent senders never interleave. */
    @Override
    public void send(Frame frame) {
      ByteBuf encoded = FrameCodec.encode(channel.alloc(), frame);
      int chunks = (encoded.readableBytes() + MAX_CHUNK - 1) / MAX_CHUNK;
      ByteBuf out = channel.alloc().buffer(encoded.readableBytes() + chunks * HEADER_BYTES);
      while (encoded.isReadable()) {
        int n = Math.min(MAX_CHUNK, encoded.readableBytes());
        out.writeInt(id).writeInt(n).writeBytes(encoded, n);
      }
      encoded.release();
      channel.writeAndFlush(out).addListener(f -> {
        if (!f.isSuccess() && channel.isOpen()) {
          close("write failed: " + f.cause());
        }
      });
    }

    @Override
    public void close(String reason) {
      if (channel.isOpen()) {
        LOG.debug("closing NRI connection: {}", reason);
        channel.close();
      }
    }

    @Override
    public ScheduledExecutorService timers() {
      return channel.eventLoop();
    }
  }
}
