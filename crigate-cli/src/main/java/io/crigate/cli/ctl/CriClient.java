package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ImageServiceGrpc;
import io.crigate.api.cri.v1.ImageServiceGrpc.ImageServiceBlockingStub;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import io.crigate.spi.CrigateException.InvalidArgument;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A plaintext gRPC channel to a CRI endpoint on a unix socket, handing out blocking stubs that each
 * carry their own deadline. Shared by {@code crigate ctl} and the integration tests' CRI client.
 */
public final class CriClient implements AutoCloseable {

  /** Large listings (thousands of containers with labels) exceed grpc's 4 MiB default. */
  public static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;

  private static final String UNIX_SCHEME = "unix://";

  private final String endpoint;
  private final EventLoopGroup eventLoop;
  private final ManagedChannel channel;

  private CriClient(String endpoint, EventLoopGroup eventLoop, ManagedChannel channel) {
    this.endpoint = endpoint;
    this.eventLoop = eventLoop;
    this.channel = channel;
  }

  /**
   * Opens a channel to {@code unix:///path} (a bare absolute path is accepted too). Connecting is
   * lazy: an absent socket surfaces as {@code UNAVAILABLE} on the first call.
   */
  public static CriClient connect(String endpoint) {
    String socket = socketPath(endpoint);
    // One daemon I/O thread: plenty for a local socket, and a forgotten close never pins the JVM.
    EventLoopGroup eventLoop =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("crigate-cri-client", true), EpollIoHandler.newFactory());
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket))
            .eventLoopGroup(eventLoop)
            .channelType(EpollDomainSocketChannel.class)
            .usePlaintext()
            .overrideAuthority("localhost")
            .directExecutor()
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
            .build();
    return new CriClient(endpoint, eventLoop, channel);
  }

  static String socketPath(String endpoint) {
    String path = endpoint.startsWith(UNIX_SCHEME) ? endpoint.substring(UNIX_SCHEME.length()) : endpoint;
    if (!path.startsWith("/")) {
      throw new InvalidArgument(
          "endpoint %s: expected unix:///absolute/path/to/socket".formatted(endpoint));
    }
    return path;
  }

  public String endpoint() {
    return endpoint;
  }

  /** A runtime stub whose calls must finish within {@code deadline} from now. */
  public RuntimeServiceBlockingStub runtime(Duration deadline) {
    return RuntimeServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** An image stub whose calls must finish within {@code deadline} from now. */
  public ImageServiceBlockingStub images(Duration deadline) {
    return ImageServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
