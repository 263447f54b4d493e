package io.crigate.transport;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A plaintext gRPC channel to a unix socket: the one way crigate's backends, {@code crigate ctl}
 * and the harnesses reach a CRI endpoint. It connects lazily, so opening never waits for the other
 * side to be up. Calls complete on the channel's event loop ({@code directExecutor}): callers hand
 * work elsewhere only when it blocks.
 */
public final class UnixSocketChannel implements AutoCloseable {

  /** CRI list responses on a busy node exceed grpc's 4 MiB default; the kubelet allows 16 MiB. */
  public static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;
  /** How long a connection attempt may take when the caller sets nothing. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private static final String UNIX_SCHEME = "unix://";

  private final ManagedChannel channel;
  private final Optional<EventLoopGroup> ownLoop;

  private UnixSocketChannel(ManagedChannel channel, Optional<EventLoopGroup> ownLoop) {
    this.channel = channel;
    this.ownLoop = ownLoop;
  }

  /** A channel on {@code eventLoops}, which the caller owns and closes after this channel. */
  public static UnixSocketChannel open(Path socket, EventLoopGroup eventLoops, Duration connectTimeout) {
    return new UnixSocketChannel(build(socket, eventLoops, connectTimeout), Optional.empty());
  }

  /** A channel with an event loop of its own (one daemon thread), closed with it. For clients. */
  public static UnixSocketChannel open(Path socket, String threadName) {
    EventLoopGroup loop = EventLoops.epoll(1, threadName);
    return new UnixSocketChannel(build(socket, loop, DEFAULT_CONNECT_TIMEOUT), Optional.of(loop));
  }

  /**
   * The socket path of {@code unix:///path} or a bare absolute path, as the kubelet's
   * {@code --container-runtime-endpoint} accepts it.
   *
   * @throws IllegalArgumentException naming the endpoint when it is neither
   */
  public static Path socketPath(String endpoint) {
    String path = endpoint.startsWith(UNIX_SCHEME) ? endpoint.substring(UNIX_SCHEME.length()) : endpoint;
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException(
          "endpoint '%s' is not a unix socket: use unix:///absolute/path or /absolute/path".formatted(endpoint));
    }
    return Path.of(path);
  }

  /** The endpoint as the kubelet would write it. */
  public static String endpoint(Path socket) {
    return UNIX_SCHEME + socket;
  }

  public ManagedChannel channel() {
    return channel;
  }

  /**
   * Makes the channel try to connect again now if its last attempt failed. grpc otherwise backs off
   * up to two minutes between attempts, so a runtime that restarted after a long outage would stay
   * unreachable that long; this way the next call gets through.
   */
  public void reconnectIfFailed() {
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
    } finally {
      ownLoop.ifPresent(loop -> EventLoops.shutdown(loop, 1));
    }
  }

  private static ManagedChannel build(Path socket, EventLoopGroup eventLoops, Duration connectTimeout) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .eventLoopGroup(eventLoops)
        .channelType(EpollDomainSocketChannel.class)
        // Replies are decoded and completed on the I/O thread: a pool hop per call costs more than
        // it saves, and crigate's forwarding path never blocks.
        .directExecutor()
        // No retry layer: crigate sets no retry policy, and the layer that would only serve
        // transparent retries buffers every message of every call. The kubelet retries CRI calls itself.
        .disableRetry()
        .usePlaintext()
        .overrideAuthority("localhost")
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(connectTimeout.toMillis()))
        .build();
  }
}
