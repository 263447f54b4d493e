package io.crigate.streaming;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyVersion;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A SPDY/3.1 client on Netty's frame codec for the port-forward tests: it upgrades a URL, opens
 * streams with the headers it is given and records what comes back on each, as spdystream would
 * show it to client-go.
 */
final class SpdyTestClient implements AutoCloseable {

  /** What arrived on one stream. */
  static final class Stream {
    final ByteArrayOutputStream data = new ByteArrayOutputStream();
    final CompletableFuture<Boolean> replied = new CompletableFuture<>();
    /** Completes with true at the server's FIN, false at its RST_STREAM. */
    final CompletableFuture<Boolean> ended = new CompletableFuture<>();

    synchronized String text() {
      return data.toString(StandardCharsets.UTF_8);
    }

    /** The text once the server ended the stream. */
    String textAtEnd() throws Exception {
      ended.get(10, TimeUnit.SECONDS);
      return text();
    }
  }

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<Integer, Stream> streams = new ConcurrentHashMap<>();
  private final CompletableFuture<FullHttpResponse> upgraded = new CompletableFuture<>();
  private Channel channel;
  private int nextStreamId = 1;

  /** Connects and upgrades, offering {@code protocols} (none: no X-Stream-Protocol-Version header). */
  static SpdyTestClient open(String url, String... protocols) throws Exception {
    SpdyTestClient client = new SpdyTestClient();
    client.connect(URI.create(url), protocols);
    return client;
  }

  private void connect(URI uri, String[] protocols) throws Exception {
    channel = new Bootstrap().group(group).channel(NioSocketChannel.class).handler(new ChannelInitializer<SocketChannel>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 16), new Upgrade());
      }
    }).connect(uri.getHost(), uri.getPort()).sync().channel();
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri.getRawPath());
    request.headers().set(HttpHeaderNames.HOST, uri.getHost()).set(HttpHeaderNames.CONNECTION, "Upgrade")
        .set(HttpHeaderNames.UPGRADE, "SPDY/3.1").set(HttpHeaderNames.CONTENT_LENGTH, 0);
    for (String protocol : protocols) {
      request.headers().add(UpgradeHandler.PROTOCOL_HEADER, protocol);
    }
    channel.writeAndFlush(request);
    FullHttpResponse response = upgraded.get(10, TimeUnit.SECONDS);
    if (response.status().code() != 101) {
      throw new IllegalStateException("upgrade refused: " + response.status() + ": "
          + response.content().toString(StandardCharsets.UTF_8));
    }
  }

  /** The server's answer to the upgrade. */
  FullHttpResponse upgradeResponse() {
    return upgraded.join();
  }

  /** Opens a stream with {@code headers} (name, value, name, value...); returns its id. */
  synchronized int openStream(String... headers) {
    int id = nextStreamId;
    nextStreamId += 2;
    streams.put(id, new Stream());
    DefaultSpdySynStreamFrame syn = new DefaultSpdySynStreamFrame(id, 0, (byte) 0);
    for (int i = 0; i < headers.length; i += 2) {
      syn.headers().add(headers[i], headers[i + 1]);
    }
    channel.writeAndFlush(syn).syncUninterruptibly();
    return id;
  }

  void send(int streamId, String text, boolean last) {
    SpdyDataFrame frame = new DefaultSpdyDataFrame(streamId, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    channel.writeAndFlush(frame.setLast(last)).syncUninterruptibly();
  }

  Stream stream(int streamId) {
    return streams.get(streamId);
  }

  boolean isOpen() {
    return channel.isActive();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Upgrade extends SimpleChannelInboundHandler<FullHttpResponse> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
      if (response.status().code() == 101) {
        ctx.pipeline().remove(HttpObjectAggregator.class);
        ctx.pipeline().replace(HttpClientCodec.class, "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
        ctx.pipeline().replace(this, "frames", new Frames());
      }
      upgraded.complete(response.retainedDuplicate());
    }
  }

  private final class Frames extends SimpleChannelInboundHandler<SpdyFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, SpdyFrame frame) throws java.io.IOException {
      switch (frame) {
        case SpdySynReplyFrame reply -> stream(reply.streamId()).replied.complete(true);
        case SpdyRstStreamFrame rst -> {
          stream(rst.streamId()).replied.complete(false);
          stream(rst.streamId()).ended.complete(false);
        }
        case SpdyDataFrame data -> {
          Stream stream = stream(data.streamId());
          synchronized (stream) {
            data.content().readBytes(stream.data, data.content().readableBytes());
          }
          if (data.isLast()) {
            stream.ended.complete(true);
          }
        }
        default -> { }
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
