package io.crigate.core.server;

import io.crigate.transport.UnixSocketChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server on the CRI unix socket, on event loops it is given (the same ones the backend
 * channels use). Methods whose handlers never block run right on the event loop that read them, so
 * a forwarded call is answered without changing threads; every other call gets a virtual thread.
 */
public final class CriServer implements AutoCloseable {

  private static final Duration FORCED_STOP_WAIT = Duration.ofSeconds(2);

  private final Server server;
  private final SocketFile socket;
  private final ExecutorService calls;
  private final Duration grace;

  private CriServer(Server server, SocketFile socket, ExecutorService calls, Duration grace) {
    this.server = server;
    this.socket = socket;
    this.calls = calls;
    this.grace = grace;
  }

  /**
   * Binds and starts serving. Services arrive with their interceptors already applied.
   *
   * @param socket a path made ready by {@link SocketFile#prepare}
   * @param grace how long {@link #close()} lets in-flight calls finish
   * @param eventLoops the I/O threads, owned by the caller and closed after this server
   * @param nonBlocking full names of the methods whose handlers never block
   * @param maxCallsPerConnection the HTTP/2 stream limit each client connection is told; further
   *     calls wait in the client until one ends
   */
  public static CriServer start(SocketFile socket, List<ServerServiceDefinition> services, Duration grace,
      EventLoopGroup eventLoops, Set<String> nonBlocking, int maxCallsPerConnection) {
    ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.bindPath().toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(eventLoops)
        .workerEventLoopGroup(eventLoops)
        .directExecutor()
        // null keeps the direct executor: the handler runs on the event loop that read the call.
        .callExecutor(new ServerCallExecutorSupplier() {
          @Override
          public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
            return nonBlocking.contains(call.getMethodDescriptor().getFullMethodName()) ? null : calls;
          }
        })
        .maxInboundMessageSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES)
        .maxConcurrentCallsPerConnection(maxCallsPerConnection);
    services.forEach(builder::addService);
    Server server = builder.build();
    try {
      server.start();
      socket.publish();
      return new CriServer(server, socket, calls, grace);
    } catch (IOException | RuntimeException e) {
      server.shutdownNow();
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
      socket.close();
    }
  }
}
