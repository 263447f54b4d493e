package io.crigate.ttrpc;

import io.crigate.ttrpc.transport.ChannelTransport;
import io.crigate.ttrpc.transport.EventLoops;
import io.crigate.ttrpc.transport.Frame;
import io.crigate.ttrpc.transport.FrameListener;
import io.crigate.ttrpc.transport.FrameTransport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A ttrpc server: serves its services on a unix socket, or on any {@link FrameTransport} handed to
 * {@link #serve(FrameTransport)} (one logical connection of a multiplexed socket).
 */
public final class TtrpcServer implements AutoCloseable {

  private final Map<String, ServiceDefinition> services;
  private final Executor executor;
  private final EventLoopGroup group;
  private final Duration grace;
  private final Map<ServerConnection, FrameTransport> connections = new ConcurrentHashMap<>();
  private volatile Channel listener;
  private volatile Path socket;
  private volatile boolean closed;

  private TtrpcServer(Builder b) {
    this.services = Map.copyOf(b.services);
    this.executor = b.executor;
    this.group = b.group;
    this.grace = b.grace;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Listens on {@code socket}, replacing a stale socket file; returns once bound. */
  public TtrpcServer bind(Path socket) throws IOException {
    Files.deleteIfExists(socket);
    this.socket = socket;
    listener = new ServerBootstrap().group(group).channel(EpollServerDomainSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ChannelTransport.install(ch, TtrpcServer.this::connection);
          }
        })
        .bind(new DomainSocketAddress(socket.toFile())).syncUninterruptibly().channel();
    return this;
  }

  /** Serves the requests arriving on {@code transport}; returns the listener to feed its frames to. */
  public FrameListener serve(FrameTransport transport) {
    return connection(transport);
  }

  private FrameListener connection(FrameTransport transport) {
    ServerConnection c = new ServerConnection(transport, name -> Optional.ofNullable(services.get(name)), executor,
        () -> transport.close("server shut down"));
    connections.put(c, transport);
    if (closed) {
      c.drain();
    }
    return new FrameListener() {
      @Override
      public void onFrame(Frame frame) {
        c.onFrame(frame);
      }

      @Override
      public void onClosed() {
        connections.remove(c);
        c.onClosed();
      }
    };
  }

  public int activeCalls() {
    return connections.keySet().stream().mapToInt(ServerConnection::activeCalls).sum();
  }

  /**
   * Graceful close: stops listening, answers new requests UNAVAILABLE, lets the calls under way
   * finish within the grace period, then cancels the rest and closes every connection.
   */
  @Override
  public void close() {
    closed = true;
    if (listener != null) {
      listener.close().syncUninterruptibly();
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        // a stale socket file is replaced by the next bind
      }
    }
    connections.keySet().forEach(ServerConnection::drain);
    long deadline = System.nanoTime() + grace.toNanos();
    while (!connections.isEmpty() && System.nanoTime() < deadline && activeCalls() > 0) {
      awaitQuietly(Duration.ofMillis(10));
    }
    connections.keySet().forEach(c -> c.cancelAll("server shut down before the call ended"));
    connections.values().forEach(t -> t.close("server shut down"));
  }

  private static void awaitQuietly(Duration d) {
    try {
      new CountDownLatch(1).await(d.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public static final class Builder {
    private final Map<String, ServiceDefinition> services = new HashMap<>();
    private Executor executor = Executors.newVirtualThreadPerTaskExecutor();
    private EventLoopGroup group = EventLoops.shared();
    private Duration grace = Duration.ofSeconds(10);

    public Builder service(ServiceDefinition service) {
      if (services.putIfAbsent(service.name(), service) != null) {
        throw new IllegalArgumentException("service %s registered twice".formatted(service.name()));
      }
      return this;
    }

    /**
     * Where handlers run; a virtual thread per call by default. A handler past its deadline is
     * interrupted, so a pooled executor's threads must tolerate a stray interrupt.
     */
    public Builder executor(Executor executor) {
      this.executor = executor;
      return this;
    }

    public Builder eventLoop(EventLoopGroup group) {
      this.group = group;
      return this;
    }

    /** How long {@link #close()} waits for calls under way. */
    public Builder gracePeriod(Duration grace) {
      this.grace = grace;
      return this;
    }

    public TtrpcServer build() {
      return new TtrpcServer(this);
    }
  }
}
