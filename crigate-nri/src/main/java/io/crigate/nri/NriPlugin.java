package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.ContainerEviction;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.RegisterPluginRequest;
import io.crigate.api.nri.v1alpha1.UpdateContainersRequest;
import io.crigate.api.nri.v1alpha1.UpdateContainersResponse;
import io.crigate.api.nri.v1alpha1.Empty;
import io.crigate.ttrpc.CallOptions;
import io.crigate.ttrpc.Code;
import io.crigate.ttrpc.TtrpcClient;
import io.crigate.ttrpc.TtrpcException;
import io.crigate.ttrpc.TtrpcServer;
import io.crigate.ttrpc.transport.EventLoops;
import io.crigate.ttrpc.transport.FrameTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * crigate as an NRI plugin: connects to the runtime's NRI socket (or uses the connection a runtime
 * hands a pre-installed plugin as fd 3), serves the Plugin service on mux connection 1, registers
 * on connection 2, and reconnects with backoff when a socket-mode runtime restarts.
 */
public final class NriPlugin implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NriPlugin.class);
  public static final Path DEFAULT_SOCKET = Path.of("/var/run/nri/nri.sock");
  static final Duration REGISTRATION_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /**
   * Where and as whom the plugin connects.
   *
   * @param socket the runtime's NRI socket; ignored when {@code fd} is set
   * @param fd a connected socket inherited from the runtime ({@code NRI_PLUGIN_SOCKET=3}), or -1
   */
  public record Settings(String name, String index, Path socket, int fd) {

    /**
     * Reads {@code NRI_PLUGIN_NAME}, {@code NRI_PLUGIN_IDX} and {@code NRI_PLUGIN_SOCKET} over the
     * given defaults. A runtime that starts a pre-installed plugin sets all three, the socket
     * being a file descriptor number; a plugin started by hand may set a socket path.
     */
    public static Settings fromEnvironment(Map<String, String> env, String name, String index, Path socket) {
      String s = env.getOrDefault("NRI_PLUGIN_SOCKET", "");
      int fd = s.matches("\\d+") ? Integer.parseInt(s) : -1;
      Path path = s.isEmpty() || fd >= 0 ? socket : Path.of(s);
      return new Settings(env.getOrDefault("NRI_PLUGIN_NAME", name), env.getOrDefault("NRI_PLUGIN_IDX", index), path, fd);
    }
  }

  private final Settings settings;
  private final ConfiguredHandler handlers;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private volatile TtrpcClient runtime;
  private volatile Channel channel;
  private volatile boolean closed;
  private volatile CompletableFuture<Void> registered = new CompletableFuture<>();
  private Duration backoff = Duration.ofMillis(500);

  /** A plugin that answers the same whatever configuration the runtime passes. */
  public NriPlugin(Settings settings, NriHandler handler) {
    this(settings, config -> handler);
  }

  /** A plugin built anew from the configuration the runtime passes in each Configure. */
  public NriPlugin(Settings settings, ConfiguredHandler handlers) {
    this.settings = settings;
    this.handlers = handlers;
  }

  /** Connects and registers in the background; reconnects until {@link #close()}. */
  public NriPlugin start() {
    connect();
    return this;
  }

  /** Completes on each successful registration; a new future after a reconnect. */
  public CompletableFuture<Void> registered() {
    return registered;
  }

  /** Completes when the plugin stops for good (closed, Shutdown, or an inherited connection lost). */
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  /**
   * Unsolicited updates and evictions, sent to the runtime on connection 2.
   *
   * @return the updates the runtime could not apply
   */
  public List<ContainerUpdate> updateContainers(List<ContainerUpdate> updates, List<ContainerEviction> evictions) {
    TtrpcClient c = runtime;
    if (c == null) {
      throw new TtrpcException(Code.UNAVAILABLE, "not connected to an NRI runtime");
    }
    UpdateContainersRequest request = UpdateContainersRequest.newBuilder().addAllUpdate(updates).addAllEvict(evictions).build();
    return c.call(NriServices.RUNTIME, "UpdateContainers", request, UpdateContainersResponse.parser(),
        CallOptions.timeout(Duration.ofSeconds(2))).getFailedList();
  }

  /**
   * The engine's updates decided outside an event (its {@link io.crigate.spi.adjust.ContainerUpdater}),
   * sent as unsolicited UpdateContainers.
   *
   * @return the updates the runtime could not apply
   */
  public List<io.crigate.spi.adjust.ContainerUpdate> update(List<io.crigate.spi.adjust.ContainerUpdate> updates) {
    return updateContainers(updates.stream().map(NriTranslation::update).toList(), List.of())
        .stream().map(NriTranslation::update).toList();
  }

  private void connect() {
    if (closed) {
      return;
    }
    CompletableFuture<Void> attempt = registered.isDone() ? new CompletableFuture<>() : registered;
    registered = attempt;
    try {
      channel = open(transportFactories(attempt));
      channel.closeFuture().addListener(f -> onDisconnect());
      Thread.ofVirtual().name("nri-register").start(() -> register(attempt));
    } catch (RuntimeException e) {
      LOG.warn("cannot connect to NRI runtime at {}: {}", settings.socket(), e.toString());
      onDisconnect();
    }
  }

  private Map<Integer, Function<FrameTransport, io.crigate.ttrpc.transport.FrameListener>> transportFactories(
      CompletableFuture<Void> attempt) {
    PluginService service = new PluginService(handlers, this::close);
    // the runtime may call Configure before RegisterPlugin's answer arrives: serve conn 1 first
    TtrpcServer server = TtrpcServer.builder().service(service.definition()).build();
    return Map.of(
        Mux.PLUGIN_SERVICE_CONN, server::serve,
        Mux.RUNTIME_SERVICE_CONN, t -> {
          TtrpcClient client = TtrpcClient.over(t);
          runtime = client;
          return client.listener();
        });
  }

  private Channel open(Map<Integer, Function<FrameTransport, io.crigate.ttrpc.transport.FrameListener>> conns) {
    if (settings.fd() >= 0) {
      EpollDomainSocketChannel ch = new EpollDomainSocketChannel(settings.fd());
      Mux.install(ch, conns);
      EventLoops.shared().register(ch).syncUninterruptibly();
      return ch;
    }
    return new Bootstrap().group(EventLoops.shared()).channel(EpollDomainSocketChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            Mux.install(ch, conns);
          }
        })
        .connect(new DomainSocketAddress(settings.socket().toFile())).syncUninterruptibly().channel();
  }

  private void register(CompletableFuture<Void> attempt) {
    RegisterPluginRequest request = RegisterPluginRequest.newBuilder().setPluginName(settings.name())
        .setPluginIdx(settings.index()).setNRIVersion(NriServices.NRI_VERSION).build();
    try {
      runtime.call(NriServices.RUNTIME, "RegisterPlugin", request, Empty.parser(), CallOptions.timeout(REGISTRATION_TIMEOUT));
      LOG.info("registered with the NRI runtime as {}-{}", settings.index(), settings.name());
      backoff = Duration.ofMillis(500);
      attempt.complete(null);
    } catch (TtrpcException e) {
      LOG.warn("NRI registration as {}-{} failed: {}", settings.index(), settings.name(), e.getMessage());
      attempt.completeExceptionally(e);
      Channel ch = channel;
      if (ch != null) {
        ch.close();
      }
    }
  }

  private void onDisconnect() {
    runtime = null;
    if (closed || settings.fd() >= 0) {
      // a pre-installed plugin cannot reconnect: its runtime restarts it instead
      stopped.complete(null);
      return;
    }
    Duration wait = backoff;
    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    LOG.info("NRI runtime connection lost; reconnecting in {} ms", wait.toMillis());
    // connect blocks until connected, so never on the event loop itself
    EventLoops.shared().schedule(() -> Thread.ofVirtual().name("nri-reconnect").start(this::connect),
        wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closed = true;
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
    stopped.complete(null);
  }
}
