package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.transport.EventLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.ssl.SslContext;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kube-scheduler extender over HTTP(S): {@code POST {urlPrefix}/prioritize} and
 * {@code POST {urlPrefix}/filter}. Malformed requests get 400 with a message naming the problem,
 * bodies above {@link ExtenderEndpoint#maxRequestBytes()} 413.
 *
 * <p>Netty's HTTP codec on epoll event loops, and each call runs on the loop that read it: the
 * request is read, scored and answered by one thread, with no hand-off to wake another (on this
 * project's hosts a wake-up is where a round trip's tail comes from; docs/benchmarks.md measured
 * the same call on Helidon's virtual threads). The one thing a call may wait for, a registry's
 * manifest for an image the extender has not seen, runs on a virtual thread instead
 * ({@link ExtenderHttpHandler}).
 */
public final class ExtenderServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);

  private final EventLoopGroup loops;
  private final ExecutorService waiting;
  private final Channel listener;

  /**
   * Plain HTTP with the default request limit (tests and benchmarks on loopback), images from a
   * lookup that never waits ({@link ImageLayerSource#inMemory}).
   *
   * @param urlPrefix the {@code urlPrefix} path of kube-scheduler's extender config, e.g. {@code /crigate}
   * @param port 0 for any free port
   * @param filter whether to serve the {@code filter} verb (off: it answers 404)
   * @param loads each node's CPU load, which a {@link NodeLoadInformer} keeps current
   */
  public ExtenderServer(String host, int port, String urlPrefix, boolean filter, LayerIndex inventories,
      NodeLoads loads, Function<String, ImageLayers> images) {
    this(ExtenderEndpoint.plain(host, port, urlPrefix), filter, inventories, loads, ImageLayerSource.inMemory(images), null);
  }

  /**
   * @param metrics when not null, each verb's latency goes into it and it is served on
   *     {@code GET /metrics} (with {@code /healthz}) on the same port
   */
  public ExtenderServer(ExtenderEndpoint endpoint, boolean filter, LayerIndex inventories,
      NodeLoads loads, ImageLayerSource images, PrometheusRegistry metrics) {
    Optional<SslContext> tls = endpoint.tls().map(ExtenderTls::nettyContext);
    ExtenderHttpHandler.Routes routes = new ExtenderHttpHandler.Routes(endpoint.urlPrefix(), filter,
        new ExtenderVerbs(inventories, loads, images), Optional.ofNullable(metrics).map(VerbMetrics::new));
    this.loops = EventLoops.epoll(Math.max(1, Runtime.getRuntime().availableProcessors()), "extender-http");
    this.waiting = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("extender-registry-", 0).factory());
    // above any legal request (the limit is a long so that a flag cannot overflow; the codec counts in ints)
    int maxBody = (int) Math.min(Integer.MAX_VALUE, endpoint.maxRequestBytes());
    try {
      this.listener = new ServerBootstrap()
          .group(loops)
          .channel(EpollServerSocketChannel.class)
          // Nagle's algorithm against the client's delayed ACK would hold a reply's last segment ~40 ms
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
              ChannelPipeline pipeline = channel.pipeline();
              tls.ifPresent(context -> pipeline.addLast(context.newHandler(channel.alloc())));
              pipeline.addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(), new HttpObjectAggregator(maxBody),
                  new ExtenderHttpHandler(routes, waiting));
            }
          })
          .bind(endpoint.host(), endpoint.port()).syncUninterruptibly().channel();
    } catch (RuntimeException bindFailed) {
      release();
      throw bindFailed;
    }
    LOG.info("crigate extender listening on {}://{}:{}{}/prioritize (filter verb {}, client certificates {})",
        tls.isPresent() ? "https" : "http", endpoint.host(), port(), endpoint.urlPrefix(), filter ? "on" : "off",
        endpoint.tls().flatMap(ExtenderTls::clientCaFile).isPresent() ? "required" : "not asked");
  }

  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    release();
  }

  private void release() {
    EventLoops.shutdown(loops, 10);
    waiting.close();
  }
}
