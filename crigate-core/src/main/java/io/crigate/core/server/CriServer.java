package io.crigate.core.server;

import io.crigate.transport.UnixSocketChannel;
import io.crigate.transport.relay.Http2Upstream;
import io.crigate.transport.relay.StreamRelayServer;
import io.crigate.transport.relay.StreamRouter;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The gRPC server on the CRI unix socket, on event loops it is given (the same ones the backend
 * channels use). Methods whose handlers never block run right on the event loop that read them, so
 * a forwarded call is answered without changing threads; every other call gets a virtual thread.
 *
 * <p>With a relay, the kubelet's socket is served by a {@link StreamRelayServer} instead: streams
 * its router sends to a backend never reach grpc-java, and the rest are relayed unchanged to this
 * gRPC server on a private socket of its own.
 */
public final class CriServer implements AutoCloseable {

  private static final Duration FORCED_STOP_WAIT = Duration.ofSeconds(2);

  private final Server server;
  private final SocketFile socket;
  private final ExecutorService calls;
  private final Duration grace;
  /** The relay's parts, closed first (last started first). */
  private final Deque<AutoCloseable> front;

  private CriServer(Server server, SocketFile socket, ExecutorService calls, Duration grace, Deque<AutoCloseable> front) {
    this.server = server;
    this.socket = socket;
    this.calls = calls;
    this.grace = grace;
    this.front = front;
  }

  /** As {@link #start(SocketFile, List, Duration, EventLoopGroup, Set, int, Optional)} without a relay. */
  public static CriServer start(SocketFile socket, List<ServerServiceDefinition> services, Duration grace,
      EventLoopGroup eventLoops, Set<String> nonBlocking, int maxCallsPerConnection) {
    return start(socket, services, grace, eventLoops, nonBlocking, maxCallsPerConnection, Optional.empty());
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
   * @param relay given the connection to the gRPC server, the router of the relay in front of it
   */
  public static CriServer start(SocketFile socket, List<ServerServiceDefinition> services, Duration grace,
      EventLoopGroup eventLoops, Set<String> nonBlocking, int maxCallsPerConnection,
      Optional<Function<Http2Upstream, StreamRouter>> relay) {
    // Named threads: logback names an unnamed virtual thread for each log line it writes by looking
    // up Thread.isVirtual reflectively, which was a third of a policy placement's log line.
    ExecutorService calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("cri-", 0).factory());
    // Behind a relay the gRPC server has one client, the relay, which enforces the per-connection limit itself.
    Path grpcPath = relay.isPresent() ? socket.callServerPath() : socket.bindPath();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(grpcPath.toString()))
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
        .maxConcurrentCallsPerConnection(relay.isPresent() ? Integer.MAX_VALUE : maxCallsPerConnection);
    services.forEach(builder::addService);
    Server server = builder.build();
    Deque<AutoCloseable> front = new ArrayDeque<>();
    try {
      server.start();
      if (relay.isPresent()) {
        Http2Upstream callServer = Http2Upstream.to(grpcPath, eventLoops, UnixSocketChannel.DEFAULT_CONNECT_TIMEOUT);
        front.push(callServer);
        front.push(StreamRelayServer.bind(socket.bindPath(), eventLoops, relay.get().apply(callServer),
            maxCallsPerConnection, grace));
      }
      socket.publish();
      return new CriServer(server, socket, calls, grace, front);
    } catch (IOException | RuntimeException e) {
      closeFront(front);
      server.shutdownNow();
      calls.shutdownNow();
      socket.close();
      throw e instanceof IOException io ? new UncheckedIOException("cannot serve on " + socket.path(), io) : (RuntimeException) e;
    }
  }

  /** Stops accepting, lets in-flight calls finish within the grace period, then cancels the rest. */
  @Override
  public void close() {
    closeFront(front);
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

  private static void closeFront(Deque<AutoCloseable> front) {
    while (!front.isEmpty()) {
      try {
        front.pop().close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot close the CRI relay", e);
      }
    }
  }
}
