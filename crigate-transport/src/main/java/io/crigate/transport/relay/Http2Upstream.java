package io.crigate.transport.relay;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One HTTP/2 connection to a gRPC server on a unix socket, shared by every stream relayed to it,
 * on crigate's event loops. It connects lazily and again after it was lost; streams are opened on
 * it without any gRPC call objects.
 */
public final class Http2Upstream implements AutoCloseable {

  private final Path socket;
  private final Bootstrap bootstrap;
  private ChannelFuture connection;
  private boolean closed;

  private Http2Upstream(Path socket, Bootstrap bootstrap) {
    this.socket = socket;
    this.bootstrap = bootstrap;
  }

  /** Does not connect yet; {@link #open} or {@link #connectIfIdle} do. */
  public static Http2Upstream to(Path socket, EventLoopGroup eventLoops, Duration connectTimeout) {
    Bootstrap bootstrap = new Bootstrap().group(eventLoops).channel(EpollDomainSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(connectTimeout.toMillis()))
        .remoteAddress(new DomainSocketAddress(socket.toString()))
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel channel) {
            channel.pipeline().addLast(Http2FrameCodecBuilder.forClient().initialSettings(RelaySettings.settings()).build(),
                // gRPC servers never push: no inbound streams to handle
                new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()),
                new ConnectionErrors("upstream " + socket));
          }
        });
    return new Http2Upstream(socket, bootstrap);
  }

  public Path socket() {
    return socket;
  }

  /** Whether a connection is up now, so a stream opened on it starts at once. */
  public synchronized boolean isConnected() {
    return connection != null && connection.isSuccess() && connection.channel().isActive();
  }

  /** Starts connecting unless a connection is up or on its way; never waits. */
  public synchronized void connectIfIdle() {
    if (closed) {
      return;
    }
    if (connection == null || (connection.isDone() && !connection.channel().isActive())) {
      connection = bootstrap.connect();
    }
  }

  /** Opens a stream with {@code handler} on the connection, connecting first if there is none. */
  public Future<Http2StreamChannel> open(ChannelHandler handler) {
    ChannelFuture current;
    synchronized (this) {
      connectIfIdle();
      current = connection;
    }
    if (current == null) {
      return bootstrap.config().group().next().newFailedFuture(new IllegalStateException("closed: " + socket));
    }
    if (current.isSuccess()) {
      return new Http2StreamChannelBootstrap(current.channel()).handler(handler).open();
    }
    Promise<Http2StreamChannel> opened = current.channel().eventLoop().newPromise();
    current.addListener(connected -> {
      if (connected.isSuccess()) {
        new Http2StreamChannelBootstrap(current.channel()).handler(handler).open(opened);
      } else {
        opened.setFailure(new ConnectException("cannot connect to %s: %s".formatted(socket, connected.cause())));
      }
    });
    return opened;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (connection != null) {
      connection.channel().close();
    }
  }
}
