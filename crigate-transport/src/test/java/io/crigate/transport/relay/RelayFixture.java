package io.crigate.transport.relay;

import io.crigate.transport.EventLoops;
import io.crigate.transport.UnixSocketChannel;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A grpc-java server behind a relay on unix sockets, each end with the HTTP/2 window it is given,
 * and grpc-java clients of the relay with theirs: for the tests of what the relay's flow control does.
 */
final class RelayFixture implements AutoCloseable {

  final EventLoopGroup eventLoops = EventLoops.epoll(1, "relay-fixture");
  final Path relaySocket;
  private final Server server;
  private final Http2Upstream upstream;
  private final StreamRelayServer relay;

  /** @param serverWindow the upstream server's flow-control window (it announces it, and grants no more) */
  RelayFixture(Path dir, ServerServiceDefinition service, int serverWindow) throws IOException {
    Path upstreamSocket = dir.resolve("upstream.sock");
    relaySocket = dir.resolve("relay.sock");
    server = NettyServerBuilder.forAddress(new DomainSocketAddress(upstreamSocket.toString()))
        .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(eventLoops).workerEventLoopGroup(eventLoops)
        .maxInboundMessageSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES).flowControlWindow(serverWindow)
        .addService(service).build().start();
    upstream = Http2Upstream.to(upstreamSocket, eventLoops, Duration.ofSeconds(5));
    relay = StreamRelayServer.bind(relaySocket, eventLoops, (path, message) -> Route.plain(upstream), 100,
        Duration.ofSeconds(1));
  }

  /** A client of the relay that grants {@code window} per stream and for its connection. */
  ManagedChannel client(int window) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(relaySocket.toString()))
        .channelType(EpollDomainSocketChannel.class).eventLoopGroup(eventLoops).usePlaintext()
        .flowControlWindow(window).maxInboundMessageSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES).build();
  }

  static <T> MethodDescriptor<T, T> method(MethodDescriptor.Marshaller<T> marshaller, String name,
      MethodDescriptor.MethodType type) {
    return MethodDescriptor.newBuilder(marshaller, marshaller).setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("test.Relay", name)).build();
  }

  @Override
  public void close() {
    relay.close();
    upstream.close();
    server.shutdownNow();
    EventLoops.shutdown(eventLoops, 2);
  }
}
