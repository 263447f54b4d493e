package io.crigate.streaming;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.AttachResponse;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.ExecResponse;
import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.api.cri.v1.PortForwardResponse;
import io.crigate.spi.CrigateException;
import io.crigate.spi.PortForwarder;
import io.crigate.spi.StreamingRuntime;
import io.crigate.spi.config.PortNumber;
import io.crigate.spi.Streams;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * crigate's CRI streaming server: Exec, Attach and PortForward answer with a single-use URL on this
 * server, and the session runs when a client opens it with SPDY/3.1 ({@code v4.channel.k8s.io} or
 * {@code portforward.k8s.io}, the kubelet) or WebSocket ({@code v5.channel.k8s.io}). It binds on the first request, so a crigate whose backends
 * all stream by themselves never opens a port.
 */
public final class StreamingServer implements Streams, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StreamingServer.class);
  /** Headers of the upgrade request only; the session's bytes never pass the aggregator. */
  private static final int MAX_REQUEST_BYTES = 64 << 10;

  private final StreamingSettings settings;
  private final StreamingMetrics metrics;
  private final Optional<SslContext> tls;
  private final Tokens tokens;
  private EventLoopGroup loop;
  private Channel listener;
  private String baseUrl;

  private StreamingServer(StreamingSettings settings, Clock clock, PrometheusRegistry registry) {
    this.settings = settings;
    this.metrics = new StreamingMetrics(registry);
    this.tls = settings.tls().map(StreamingTls::context);
    this.tokens = new Tokens(settings.tokenTtl(), clock);
  }

  /** A server whose metrics go nowhere. */
  public static StreamingServer create(StreamingSettings settings) {
    return create(settings, new PrometheusRegistry());
  }

  /** A server whose sessions are counted in {@code registry} (docs/operations.md). */
  public static StreamingServer create(StreamingSettings settings, PrometheusRegistry registry) {
    return create(settings, Clock.systemUTC(), registry);
  }

  static StreamingServer create(StreamingSettings settings, Clock clock) {
    return create(settings, clock, new PrometheusRegistry());
  }

  static StreamingServer create(StreamingSettings settings, Clock clock, PrometheusRegistry registry) {
    return new StreamingServer(settings, clock, registry);
  }

  @Override
  public ExecResponse exec(ExecRequest request, StreamingRuntime runtime) {
    if (request.getCmdCount() == 0) {
      throw new CrigateException.InvalidArgument("Exec needs cmd");
    }
    checkStreams(request.getStdin(), request.getStdout(), request.getStderr(), request.getTty());
    return ExecResponse.newBuilder().setUrl(url(StreamRequest.exec(request, runtime, metrics))).build();
  }

  @Override
  public AttachResponse attach(AttachRequest request, StreamingRuntime runtime) {
    checkStreams(request.getStdin(), request.getStdout(), request.getStderr(), request.getTty());
    return AttachResponse.newBuilder().setUrl(url(StreamRequest.attach(request, runtime, metrics))).build();
  }

  @Override
  public PortForwardResponse portForward(PortForwardRequest request, PortForwarder forwarder) {
    if (request.getPodSandboxId().isEmpty()) {
      throw new CrigateException.InvalidArgument("PortForward needs pod_sandbox_id");
    }
    for (int port : request.getPortList()) {
      if (port < 1 || port > PortNumber.MAX) {
        throw new CrigateException.InvalidArgument("PortForward: port %d is not a TCP port (1-65535)".formatted(port));
      }
    }
    return PortForwardResponse.newBuilder().setUrl(url(ForwardRequest.of(request, forwarder, metrics))).build();
  }

  /** The kubelet's own checks on a streaming request, so a client learns them before it connects. */
  private static void checkStreams(boolean stdin, boolean stdout, boolean stderr, boolean tty) {
    if (!stdin && !stdout && !stderr) {
      throw new CrigateException.InvalidArgument("one of stdin, stdout or stderr must be set");
    }
    if (tty && stderr) {
      throw new CrigateException.InvalidArgument("tty and stderr cannot both be set: a terminal has one output");
    }
  }

  private String url(IssuedSession request) {
    String base = baseUrl();
    return base + "/" + request.kind() + "/" + tokens.issue(request);
  }

  /** Where the server listens; binds it if no session was requested yet. */
  public synchronized InetSocketAddress address() {
    baseUrl();
    return (InetSocketAddress) listener.localAddress();
  }

  private synchronized String baseUrl() {
    if (baseUrl == null) {
      bind();
    }
    return baseUrl;
  }

  private void bind() {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
          .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 << 10, 256 << 10))
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
              channel.pipeline().addLast(IdleConnectionCloser.watching(settings.idleTimeout(), metrics));
              tls.ifPresent(context -> channel.pipeline().addLast(context.newHandler(channel.alloc())));
              channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                  new UpgradeHandler(tokens, settings.streamCreationTimeout()));
            }
          })
          .bind(new InetSocketAddress(settings.address(), settings.port())).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw new CrigateException.Unavailable("streaming server cannot listen on %s:%d: %s"
          .formatted(settings.address().getHostAddress(), settings.port(), e.getMessage()), e);
    }
    loop = group;
    InetSocketAddress bound = (InetSocketAddress) listener.localAddress();
    String host = bound.getAddress().getHostAddress();
    baseUrl = (tls.isPresent() ? "https://" : "http://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort();
    LOG.info("streaming server listening on {}", baseUrl);
    if (tls.isEmpty() && !bound.getAddress().isLoopbackAddress()) {
      LOG.warn("streaming server on {} without TLS: exec and attach streams cross the network in the clear "
          + "(set streaming.tlsCert and streaming.tlsKey, or keep the loopback address)", baseUrl);
    }
  }

  @Override
  public synchronized void close() {
    if (listener != null) {
      listener.close().syncUninterruptibly();
      loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
      listener = null;
      baseUrl = null;
    }
  }
}
