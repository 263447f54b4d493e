package io.crigate.core.server;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server on the CRI unix socket: Netty epoll for I/O, one virtual thread per call because
 * handlers block on backends.
 */
public final class CriServer implements AutoCloseable {

  /** The kubelet's own limit for CRI messages. */
  static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;
  private static final Duration FORCED_STOP_WAIT = Duration.ofSeconds(2);

  private final Server server;
  private final SocketFile socket;
  private final EventLoopGroup eventLoops;
  private final ExecutorService calls;
  private final Duration grace;

  private CriServer(Server server, SocketFile socket, EventLoopGroup eventLoops, ExecutorService calls, Duration grace) {
    this.server = server;
    this.socket = socket;
    this.eventLoops = eventLoops;
    this.calls = calls;
    this.grace = grace;
  }

  /**
   * Binds and starts serving. Services arrive with their interceptors already applied.
   *
   * @param socket a path made ready by {@link SocketFile#prepare}
   * @param grace how long {@link #close()} lets in-flight calls finish
   */
  public static CriServer start(SocketFile socket, List<ServerServiceDefinition> services, Duration grace) {
    EventLoopGroup eventLoops = new MultiThreadIoEventLoopGroup(EpollIoHandler.newFactory());
    ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.bindPath().toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(eventLoops)
        .workerEventLoopGroup(eventLoops)
        .executor(calls)
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
    services.forEach(builder::addService);
    Server server = builder.build();
    try {
      server.start();
      socket.publish();
      return new CriServer(server, socket, eventLoops, calls, grace);
    } catch (IOException | RuntimeException e) {
      server.shutdownNow();
      eventLoops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      calls.shutdownNow();
      socket.close();
      throw e instanceof IOException io ? new UncheckedIOException("cannot serve on " + socket.path(), io) : (RuntimeException) e;
    }
  }

  /** Stops accepting, lets in-flight calls finish within the grace period, then cancels the rest. */
  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(FORCED_STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      calls.shutdownNow();
      eventLoops.shutdownGracefully(0, FORCED_STOP_WAIT.toSeconds(), TimeUnit.SECONDS).syncUninterruptibly();
      socket.close();
    }
  }
}
