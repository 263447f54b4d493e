package io.crigate.bench;

import io.crigate.transport.EventLoops;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.List;

/**
 * The Java floors of a hop, for {@link ProxyOverheadBenchmark}: a Netty epoll relay between a unix
 * socket and the runtime's, run as its own JVM like crigate, one upstream connection per accepted
 * connection, both on the same event loop. {@code bytes} copies bytes as they come (what socat does,
 * in Java); {@code hpack} also splits the HTTP/2 frames and decodes and re-encodes every header
 * block, which any hop that routes gRPC streams by their headers must do, and passes everything
 * else (settings, flow control, data) through unchanged. What crigate adds above {@code hpack} is
 * its stream state, flow control and routing; what {@code hpack} adds above {@code bytes} is HPACK.
 *
 * <p>Usage: {@code HopRelay bytes|hpack LISTEN_SOCKET UPSTREAM_SOCKET}; serves until killed.
 */
final class HopRelay {

  private static final int FRAME_HEADER_BYTES = 9;
  private static final int TYPE_HEADERS = 0x1;
  private static final int FLAG_END_STREAM = 0x1;
  private static final int FLAG_END_HEADERS = 0x4;
  private static final int FLAG_PADDED = 0x8;
  private static final int FLAG_PRIORITY = 0x20;
  /** "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": a client's first bytes, before any frame. */
  private static final int PREFACE_BYTES = 24;

  private HopRelay() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 3 || !List.of("bytes", "hpack").contains(args[0])) {
      System.err.println("usage: HopRelay bytes|hpack LISTEN_SOCKET UPSTREAM_SOCKET");
      System.exit(2);
    }
    boolean hpack = args[0].equals("hpack");
    DomainSocketAddress upstream = new DomainSocketAddress(args[2]);
    EventLoopGroup loop = EventLoops.epoll(1, "hop");
    new ServerBootstrap().group(loop).channel(EpollServerDomainSocketChannel.class)
        .childOption(ChannelOption.AUTO_READ, false)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel caller) {
            connect(caller, upstream, hpack);
          }
        })
        .bind(new DomainSocketAddress(args[1])).sync().channel().closeFuture().sync();
  }

  /** Connects the caller's upstream on the caller's own event loop, then lets both read. */
  private static void connect(Channel caller, DomainSocketAddress upstream, boolean hpack) {
    ChannelFuture connected = new Bootstrap().group(caller.eventLoop()).channel(EpollDomainSocketChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel channel) {
            if (hpack) {
              channel.pipeline().addLast(new HeaderBlocks(0));
            }
            channel.pipeline().addLast(new Forward(caller));
          }
        })
        .connect(upstream);
    if (hpack) {
      caller.pipeline().addLast(new HeaderBlocks(PREFACE_BYTES));
    }
    caller.pipeline().addLast(new Forward(connected.channel()));
    connected.addListener(done -> {
      if (done.isSuccess()) {
        caller.config().setAutoRead(true);
      } else {
        caller.close();
      }
    });
  }

  /** Writes what its channel reads to {@code peer}, one flush per read batch; closes both together. */
  private static final class Forward extends ChannelInboundHandlerAdapter {
    private final Channel peer;

    Forward(Channel peer) {
      this.peer = peer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      peer.write(msg, peer.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      peer.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      peer.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /**
   * Splits one direction of a connection into HTTP/2 frames and re-encodes each HEADERS frame's
   * block with this direction's own HPACK decoder and encoder; every other frame passes as it is.
   * Header blocks continued in CONTINUATION frames are not supported (gRPC's are small).
   */
  private static final class HeaderBlocks extends ByteToMessageDecoder {
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true);
    private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
    private int prefaceLeft;

    HeaderBlocks(int prefaceBytes) {
      this.prefaceLeft = prefaceBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Http2Exception {
      if (prefaceLeft > 0) {
        int passed = Math.min(prefaceLeft, in.readableBytes());
        out.add(in.readRetainedSlice(passed));
        prefaceLeft -= passed;
        return;
      }
      while (in.readableBytes() >= FRAME_HEADER_BYTES) {
        int start = in.readerIndex();
        int length = in.getUnsignedMedium(start);
        if (in.readableBytes() < FRAME_HEADER_BYTES + length) {
          return;
        }
        int type = in.getUnsignedByte(start + 3);
        if (type != TYPE_HEADERS) {
          out.add(in.readRetainedSlice(FRAME_HEADER_BYTES + length));
          continue;
        }
        out.add(reencoded(ctx, in, length));
      }
    }

    private ByteBuf reencoded(ChannelHandlerContext ctx, ByteBuf in, int length) throws Http2Exception {
      int flags = in.getUnsignedByte(in.readerIndex() + 4);
      int stream = in.getInt(in.readerIndex() + 5) & 0x7fffffff;
      if ((flags & FLAG_END_HEADERS) == 0) {
        throw new IllegalStateException("header block continued in CONTINUATION frames: not supported by this relay");
      }
      in.skipBytes(FRAME_HEADER_BYTES);
      ByteBuf payload = in.readSlice(length);
      int padding = (flags & FLAG_PADDED) != 0 ? payload.readUnsignedByte() : 0;
      if ((flags & FLAG_PRIORITY) != 0) {
        payload.skipBytes(5);
      }
      Http2Headers headers = decoder.decodeHeaders(stream, payload.readSlice(payload.readableBytes() - padding));
      ByteBuf frame = ctx.alloc().buffer();
      frame.writerIndex(FRAME_HEADER_BYTES);
      encoder.encodeHeaders(stream, headers, frame);
      int blockBytes = frame.readableBytes() - FRAME_HEADER_BYTES;
      frame.setMedium(0, blockBytes).setByte(3, TYPE_HEADERS)
          .setByte(4, (flags & FLAG_END_STREAM) | FLAG_END_HEADERS).setInt(5, stream);
      return frame;
    }
  }
}
