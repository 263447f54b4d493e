package io.crigate.transport.relay;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * One HTTP/2 connection to a gRPC server on a unix socket, shared by every stream relayed to it,
 * on crigate's event loops. It connects lazily and again after it was lost; streams are opened on
 * it without any gRPC call objects or stream channels. It belongs to one event loop, which alone
 * connects, opens and closes, so it needs no lock: other threads hand their requests to that loop
 * and read only the published connection.
 */
public final class Http2Upstream implements AutoCloseable {

  private final Path socket;
  private final Bootstrap bootstrap;
  private final EventLoop loop;
  /** The loop's connection attempt or connection; touched on the loop only. */
  private ChannelFuture connection;
  /** The connection's handler once it is up, for {@link #isConnected()} from any thread. */
  private volatile UpstreamConnection connected;
  private volatile boolean closed;

  private Http2Upstream(Path socket, Bootstrap bootstrap, EventLoop loop) {
    this.socket = socket;
    this.bootstrap = bootstrap;
    this.loop = loop;
  }

  /** Does not connect yet; {@link #open} or {@link #connectIfIdle} do. */
  public static Http2Upstream to(Path socket, EventLoopGroup eventLoops, Duration connectTimeout) {
    EventLoop loop = eventLoops.next();
    Bootstrap bootstrap = new Bootstrap().group(loop).channel(EpollDomainSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(connectTimeout.toMillis()))
        .remoteAddress(new DomainSocketAddress(socket.toString()))
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel channel) {
            channel.pipeline().addLast(new UpstreamConnection(), new ConnectionErrors("upstream " + socket));
          }
        });
    return new Http2Upstream(socket, bootstrap, loop);
  }

  public Path socket() {
    return socket;
  }

  /** Whether a connection is up now, so a stream opened on it starts at once. */
  public boolean isConnected() {
    UpstreamConnection up = connected;
    return up != null && up.acceptsStreams();
  }

  /** Starts connecting unless a connection is up or on its way; never waits. */
  public void connectIfIdle() {
    onLoop(this::connectOnLoop);
  }

  /** Opens a stream for {@code call}, connecting first if there is no connection. */
  void open(RelayedCall call) {
    onLoop(() -> {
      connectOnLoop();
      ChannelFuture current = connection;
      if (current == null) {
        call.notOpened("closed: " + socket);
      } else if (current.isDone()) {
        openOn(current, call);
      } else {
        current.addListener(done -> openOn(current, call));
      }
    });
  }

  private void connectOnLoop() {
    if (closed) {
      return;
    }
    if (connection == null || (connection.isDone() && !usable(connection))) {
      connected = null;
      ChannelFuture attempt = bootstrap.connect();
      connection = attempt;
      attempt.addListener(done -> {
        if (attempt.isSuccess() && connection == attempt) {
          connected = handler(attempt.channel());
          attempt.channel().closeFuture().addListener(gone -> {
            if (connection == attempt) {
              connected = null;
            }
          });
        }
      });
    }
  }

  private void openOn(ChannelFuture connectedFuture, RelayedCall call) {
    if (!connectedFuture.isSuccess()) {
      call.notOpened("cannot connect to %s: %s".formatted(socket, connectedFuture.cause()));
      return;
    }
    UpstreamConnection handler = handler(connectedFuture.channel());
    if (handler == null) {
      call.notOpened("connection to %s closed".formatted(socket)); // its handlers go with the channel
      return;
    }
    handler.open(call);
  }

  /** Active and not told to go away (a server shutting down): else the next stream needs a new connection. */
  private static boolean usable(ChannelFuture connection) {
    UpstreamConnection handler = connection.isSuccess() ? handler(connection.channel()) : null;
    return handler != null && handler.acceptsStreams();
  }

  private static UpstreamConnection handler(Channel channel) {
    return channel.pipeline().get(UpstreamConnection.class);
  }

  private void onLoop(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
    } else {
      try {
        loop.execute(task);
      } catch (RejectedExecutionException shutDown) {
        // the event loops are stopping: nothing is connected or opened any more
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    connected = null;
    onLoop(() -> {
      if (connection != null) {
        connection.channel().close();
      }
    });
  }
}
