package io.crigate.ttrpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.crigate.ttrpc.transport.ChannelTransport;
import io.crigate.ttrpc.transport.EventLoops;
import io.crigate.ttrpc.transport.FrameListener;
import io.crigate.ttrpc.transport.FrameTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A ttrpc client: one connection, any number of concurrent calls on it. */
public final class TtrpcClient implements AutoCloseable {

  private final ClientConnection connection;
  private final FrameTransport transport;

  private TtrpcClient(ClientConnection connection, FrameTransport transport) {
    this.connection = connection;
    this.transport = transport;
  }

  /** Connects to a ttrpc server's unix socket on the shared event loop. */
  public static TtrpcClient connect(Path socket) {
    return connect(socket, EventLoops.shared());
  }

  public static TtrpcClient connect(Path socket, EventLoopGroup group) {
    ClientConnection[] made = new ClientConnection[1];
    ChannelTransport[] transport = new ChannelTransport[1];
    Channel channel = new Bootstrap().group(group).channel(EpollDomainSocketChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            transport[0] = ChannelTransport.install(ch, t -> made[0] = new ClientConnection(t));
          }
        })
        .connect(new DomainSocketAddress(socket.toFile())).syncUninterruptibly().channel();
    return new TtrpcClient(made[0], transport[0]);
  }

  /**
   * A client over an existing transport (one logical connection of a multiplexed socket); feed
   * the transport's frames to {@link #listener()}.
   */
  public static TtrpcClient over(FrameTransport transport) {
    return new TtrpcClient(new ClientConnection(transport), transport);
  }

  public FrameListener listener() {
    return connection;
  }

  public CompletableFuture<byte[]> callAsync(String service, String method, byte[] request, CallOptions options) {
    return connection.unary(service, method, request, options);
  }

  /** A blocking unary call; a failed call throws {@link TtrpcException} with the server's status. */
  public byte[] call(String service, String method, byte[] request, CallOptions options) {
    try {
      return callAsync(service, method, request, options).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof TtrpcException t ? t : new TtrpcException(Code.INTERNAL, String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TtrpcException(Code.CANCELLED, "interrupted while waiting for %s/%s".formatted(service, method));
    }
  }

  public <R> R call(String service, String method, MessageLite request, Parser<R> response, CallOptions options) {
    byte[] payload = call(service, method, request.toByteArray(), options);
    try {
      return response.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new TtrpcException(Code.INTERNAL, "cannot decode %s/%s response: %s".formatted(service, method, e.getMessage()));
    }
  }

  /**
   * Opens a streaming call. {@code first} is the request message of a server-streaming method (an
   * empty array for client-streaming ones); {@code clientStreams} says whether more messages follow.
   */
  public ClientStream stream(String service, String method, byte[] first, boolean clientStreams, CallOptions options) {
    return connection.stream(service, method, first, clientStreams, options);
  }

  /** Graceful close: refuses new calls, waits up to {@code grace} for calls in flight, then closes. */
  public void close(Duration grace) {
    try {
      connection.drain().get(grace.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // closing anyway: the calls still in flight fail with UNAVAILABLE
    }
    transport.close("client closed");
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }
}
