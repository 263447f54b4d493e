package io.crigate.backend.cri;

import io.crigate.transport.UnixSocketChannel;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A gRPC server on a real unix socket, standing in for the remote runtime in unit tests. */
final class UnixSocketRuntimeServer implements AutoCloseable {

  private final EventLoopGroup eventLoop;
  private final Server server;

  private UnixSocketRuntimeServer(EventLoopGroup eventLoop, Server server) {
    this.eventLoop = eventLoop;
    this.server = server;
  }

  static UnixSocketRuntimeServer start(Path socket, BindableService... services) throws IOException {
    EventLoopGroup eventLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(eventLoop)
        .workerEventLoopGroup(eventLoop)
        .maxInboundMessageSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES);
    for (BindableService service : services) {
      builder.addService(service);
    }
    return new UnixSocketRuntimeServer(eventLoop, builder.build().start());
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }
}
