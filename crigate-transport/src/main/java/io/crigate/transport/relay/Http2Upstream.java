package io.crigate.transport.relay;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One HTTP/2 connection to a gRPC server on a unix socket, shared by every stream relayed to it,
 * on crigate's event loops. It connects lazily and again after it was lost; streams are opened on
 * it without any gRPC call objects or stream channels.
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
            channel.pipeline().addLast(UpstreamConnection.create(), new ConnectionErrors("upstream " + socket));
          }
        });
    return new Http2Upstream(socket, bootstrap);
  }

  public Path socket() {
    return socket;
  }

  /** Whether a connection is up now, so a stream opened on it starts at once. */
  public synchronized boolean isConnected() {
    return connection != null && connection.isSuccess() && usable(connection.channel());
  }

  /** Starts connecting unless a connection is up or on its way; never waits. */
  public synchronized void connectIfIdle() {
    if (closed) {
      return;
    }
    if (connection == null || (connection.isDone() && !usable(connection.channel()))) {
      connection = bootstrap.connect();
    }
  }

  /** Opens a stream for {@code call}, connecting first if there is no connection. */
  void open(RelayedCall call) {
    ChannelFuture current;
    synchronized (this) {
      connectIfIdle();
      current = connection;
    }
    if (current == null) {
      call.notOpened("closed: " + socket);
      return;
    }
    if (current.isDone()) {
      openOn(current, call);
    } else {
      current.addListener(connected -> openOn(current, call));
    }
  }

  private void openOn(ChannelFuture connected, RelayedCall call) {
    if (!connected.isSuccess()) {
      call.notOpened("cannot connect to %s: %s".formatted(socket, connected.cause()));
      return;
    }
    UpstreamConnection connection = connected.channel().pipeline().get(UpstreamConnection.class);
    if (connection == null) {
      call.notOpened("connection to %s closed".formatted(socket)); // its handlers go with the channel
      return;
    }
    connection.open(call);
  }

  /** Active and not told to go away (a server shutting down): else the next stream needs a new connection. */
  private static boolean usable(Channel channel) {
    return channel.isActive() && channel.pipeline().get(UpstreamConnection.class).acceptsStreams();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (connection != null) {
      connection.channel().close();
    }
  }
}
