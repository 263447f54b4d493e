package io.crigate.backend.cri;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One backend's gRPC channel to a unix socket, with the event loop it owns. The channel connects
 * lazily, so opening never waits for the runtime to be up.
 */
final class UnixSocketChannel implements AutoCloseable {

  /** CRI list responses on a busy node exceed grpc's 4 MiB default; the kubelet allows 16 MiB. */
  static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;

  private final EventLoopGroup eventLoop;
  private final ManagedChannel channel;

  private UnixSocketChannel(EventLoopGroup eventLoop, ManagedChannel channel) {
    this.eventLoop = eventLoop;
    this.channel = channel;
  }

  static UnixSocketChannel open(String backend, RemoteCriSettings settings) {
    // One I/O thread is plenty for a local socket; daemon, so a forgotten close never pins the JVM.
    EventLoopGroup eventLoop = new MultiThreadIoEventLoopGroup(
        1, new DefaultThreadFactory("crigate-cri-" + backend, true), EpollIoHandler.newFactory());
    ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(settings.socket().toString()))
        .eventLoopGroup(eventLoop)
        .channelType(EpollDomainSocketChannel.class)
        // Responses are decoded on the I/O thread and handed to the waiting virtual thread: a
        // thread-pool hop per call costs more than it saves on two cores.
        .directExecutor()
        .usePlaintext()
        .overrideAuthority("localhost")
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(settings.connectTimeout().toMillis()))
        .build();
    return new UnixSocketChannel(eventLoop, channel);
  }

  ManagedChannel channel() {
    return channel;
  }

  /**
   * Makes the channel try to connect again now if its last attempt failed. grpc otherwise backs off
   * up to two minutes between attempts, so a runtime that restarted after a long outage would stay
   * unreachable that long; this way the kubelet's next retry gets through.
   */
  void reconnectIfFailed() {
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
