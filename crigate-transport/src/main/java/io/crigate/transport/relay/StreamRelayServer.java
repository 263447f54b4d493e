package io.crigate.transport.relay;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Terminates gRPC clients' HTTP/2 connections on a unix socket and relays each stream to where a
 * {@link StreamRouter} sends it, below any gRPC call layer: no call objects, metadata, stream
 * channels or message parsing beyond what the router reads.
 */
public final class StreamRelayServer implements AutoCloseable {

  private static final ConnectionErrors CLIENT_ERRORS = new ConnectionErrors("client");

  private final Channel listener;
  private final ChannelGroup connections;
  private final Duration grace;

  private StreamRelayServer(Channel listener, ChannelGroup connections, Duration grace) {
    this.listener = listener;
    this.connections = connections;
    this.grace = grace;
  }

  /**
   * Binds {@code socket} and serves until {@link #close()}.
   *
   * @param maxStreamsPerConnection the concurrent stream limit each client connection is told
   * @param grace how long {@link #close()} lets open streams finish
   */
  public static StreamRelayServer bind(Path socket, EventLoopGroup eventLoops, StreamRouter router,
      int maxStreamsPerConnection, Duration grace) {
    ChannelGroup connections = new DefaultChannelGroup("relayed connections", GlobalEventExecutor.INSTANCE);
    ServerBootstrap bootstrap = new ServerBootstrap().group(eventLoops).channel(EpollServerDomainSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel connection) {
            connections.add(connection);
            connection.pipeline().addLast(CallerConnection.create(router, maxStreamsPerConnection, grace.toMillis()),
                CLIENT_ERRORS);
          }
        });
    Channel listener = bootstrap.bind(new DomainSocketAddress(socket.toString())).syncUninterruptibly().channel();
    return new StreamRelayServer(listener, connections, grace);
  }

  /**
   * Stops accepting, then closes each connection gracefully: GOAWAY, and open streams get
   * {@code grace} to finish.
   */
  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    connections.close().awaitUninterruptibly(grace.toMillis() + 1000);
  }
}
