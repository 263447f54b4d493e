package io.crigate.nri;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.crigate.api.nri.v1alpha1.ConfigureRequest;
import io.crigate.api.nri.v1alpha1.ConfigureResponse;
import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.CreateContainerRequest;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Empty;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.LinuxResources;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.api.nri.v1alpha1.PostCreateContainerRequest;
import io.crigate.api.nri.v1alpha1.PostCreateContainerResponse;
import io.crigate.api.nri.v1alpha1.PostStartContainerRequest;
import io.crigate.api.nri.v1alpha1.PostStartContainerResponse;
import io.crigate.api.nri.v1alpha1.PostUpdateContainerRequest;
import io.crigate.api.nri.v1alpha1.PostUpdateContainerResponse;
import io.crigate.api.nri.v1alpha1.PostUpdatePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.PostUpdatePodSandboxResponse;
import io.crigate.api.nri.v1alpha1.RegisterPluginRequest;
import io.crigate.api.nri.v1alpha1.RemoveContainerRequest;
import io.crigate.api.nri.v1alpha1.RemoveContainerResponse;
import io.crigate.api.nri.v1alpha1.RemovePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.RemovePodSandboxResponse;
import io.crigate.api.nri.v1alpha1.RunPodSandboxRequest;
import io.crigate.api.nri.v1alpha1.RunPodSandboxResponse;
import io.crigate.api.nri.v1alpha1.StartContainerRequest;
import io.crigate.api.nri.v1alpha1.StartContainerResponse;
import io.crigate.api.nri.v1alpha1.StopContainerRequest;
import io.crigate.api.nri.v1alpha1.StopContainerResponse;
import io.crigate.api.nri.v1alpha1.StopPodSandboxRequest;
import io.crigate.api.nri.v1alpha1.StopPodSandboxResponse;
import io.crigate.api.nri.v1alpha1.SynchronizeRequest;
import io.crigate.api.nri.v1alpha1.SynchronizeResponse;
import io.crigate.api.nri.v1alpha1.UpdateContainerRequest;
import io.crigate.api.nri.v1alpha1.UpdateContainerResponse;
import io.crigate.api.nri.v1alpha1.UpdateContainersRequest;
import io.crigate.api.nri.v1alpha1.UpdateContainersResponse;
import io.crigate.api.nri.v1alpha1.UpdatePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.UpdatePodSandboxResponse;
import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import io.crigate.spi.adjust.ContainerStopper;
import io.crigate.ttrpc.Code;
import io.crigate.ttrpc.ServiceDefinition;
import io.crigate.ttrpc.TtrpcClient;
import io.crigate.ttrpc.TtrpcException;
import io.crigate.ttrpc.TtrpcServer;
import io.crigate.ttrpc.transport.EventLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * crigate as an NRI runtime: listens on an NRI socket, accepts external plugins, and drives them
 * from crigate's CRI path for every backend. Plugins are called in index order; their adjustments
 * are merged (two plugins setting one field is an error naming both). A plugin that times out or
 * whose connection breaks is dropped and the container goes on without it; a plugin that answers
 * with an error fails the request, unless the failure policy says to ignore errors.
 */
public final class NriRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NriRuntime.class);
  /** A Synchronize part stays well under ttrpc's 4 MiB limit. */
  static final int SYNC_PART_BYTES = 1 << 20;

  /**
   * @param requestTimeout per plugin call (NRI's default is 2 s)
   * @param registrationTimeout from connect to configured (NRI's default is 5 s)
   * @param failOnPluginError false: a plugin's error answer is logged and the plugin skipped
   */
  public record Settings(Path socket, Duration requestTimeout, Duration registrationTimeout, boolean failOnPluginError,
      String config) {
    public static final Path DEFAULT_SOCKET = Path.of("/var/run/crigate/nri.sock");

    public static Settings defaults(Path socket) {
      return new Settings(socket, Duration.ofSeconds(2), Duration.ofSeconds(5), true, "");
    }

    /**
     * Reads the {@code nri} section of crigate's configuration: {@code socket}, {@code requestTimeout},
     * {@code registrationTimeout}, {@code onPluginError} ({@code fail} or {@code ignore}) and
     * {@code config} (the string every plugin gets in Configure).
     *
     * @throws CrigateException.InvalidArgument naming the key of a bad value
     */
    public static Settings fromConfig(JsonNode section) {
      Set<String> known = Set.of("socket", "requestTimeout", "registrationTimeout", "onPluginError", "config");
      section.fieldNames().forEachRemaining(k -> {
        if (!known.contains(k)) {
          throw new CrigateException.InvalidArgument("unknown key 'nri.%s' (known: %s)".formatted(k, new TreeSet<>(known)));
        }
      });
      Settings d = defaults(Path.of(section.path("socket").asText(DEFAULT_SOCKET.toString())).toAbsolutePath());
      String onError = section.path("onPluginError").asText("fail");
      if (!onError.equals("fail") && !onError.equals("ignore")) {
        throw new CrigateException.InvalidArgument("nri.onPluginError '%s' must be fail or ignore".formatted(onError));
      }
      return new Settings(d.socket(), duration(section, "requestTimeout", d.requestTimeout()),
          duration(section, "registrationTimeout", d.registrationTimeout()), onError.equals("fail"),
          section.path("config").asText(""));
    }

    private static Duration duration(JsonNode section, String key, Duration fallback) {
      JsonNode v = section.path(key);
      return v.isMissingNode() ? fallback : Durations.positive("nri." + key, v.asText());
    }
  }

  /** The runtime's current pods and containers, for Synchronize. */
  public record State(List<PodSandbox> pods, List<Container> containers) {
  }

  /** The merged answer of all plugins to CreateContainer; the evictions in it are already under way. */
  public record Creation(io.crigate.api.nri.v1alpha1.ContainerAdjustment adjustment, List<ContainerUpdate> updates,
      Map<String, String> owners) {
  }

  private final Settings settings;
  private final Supplier<State> state;
  private final Function<List<ContainerUpdate>, List<ContainerUpdate>> updater;
  private final ContainerStopper stopper;
  private final List<HostedPlugin> plugins = new CopyOnWriteArrayList<>();
  private Channel listener;
  private volatile boolean closing;

  /**
   * @param state what to send a new plugin in Synchronize
   * @param updater applies updates plugins send (Synchronize answers and unsolicited
   *     UpdateContainers); returns those it could not apply
   * @param stopper stops the containers plugins evict (in an answer or unsolicited)
   */
  public NriRuntime(Settings settings, Supplier<State> state, Function<List<ContainerUpdate>, List<ContainerUpdate>> updater,
      ContainerStopper stopper) {
    this.settings = settings;
    this.state = state;
    this.updater = updater;
    this.stopper = stopper;
  }

  public NriRuntime start() throws IOException {
    Files.createDirectories(settings.socket().toAbsolutePath().getParent());
    Files.deleteIfExists(settings.socket());
    listener = new ServerBootstrap().group(EventLoops.shared()).channel(EpollServerDomainSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            accept(ch);
          }
        })
        .bind(new DomainSocketAddress(settings.socket().toFile())).syncUninterruptibly().channel();
    LOG.info("NRI runtime listening on {}", settings.socket());
    return this;
  }

  /** The plugins configured and in service, in call order. */
  public List<String> plugins() {
    return plugins.stream().map(HostedPlugin::id).toList();
  }

  private void accept(Channel ch) {
    TtrpcClient[] client = new TtrpcClient[1];
    HostedPlugin[] plugin = new HostedPlugin[1];
    Mux.install(ch, Map.of(
        Mux.PLUGIN_SERVICE_CONN, t -> {
          client[0] = TtrpcClient.over(t);
          plugin[0] = new HostedPlugin(ch, client[0]);
          return client[0].listener();
        },
        Mux.RUNTIME_SERVICE_CONN, t -> TtrpcServer.builder().service(runtimeService(() -> plugin[0])).build().serve(t)));
    ch.closeFuture().addListener(f -> {
      if (plugins.remove(plugin[0]) && !closing) {
        LOG.warn("NRI plugin {} disconnected; containers go on without it", plugin[0].id());
      }
    });
  }

  private ServiceDefinition runtimeService(Supplier<HostedPlugin> plugin) {
    return ServiceDefinition.builder(NriServices.RUNTIME)
        .unary("RegisterPlugin", RegisterPluginRequest.parser(), (c, r) -> {
          HostedPlugin p = plugin.get();
          p.registered(r.getPluginName(), r.getPluginIdx());
          // answer first: the plugin may only read Configure once registration returned
          Thread.ofVirtual().name("nri-setup-" + p.id()).start(() -> setUp(p, r.getNRIVersion()));
          return Empty.getDefaultInstance();
        })
        .unary("UpdateContainers", UpdateContainersRequest.parser(), (c, r) -> {
          evict(plugin.get(), r.getEvictList());
          return UpdateContainersResponse.newBuilder().addAllFailed(updater.apply(r.getUpdateList())).build();
        })
        .build();
  }

  private void setUp(HostedPlugin p, String version) {
    try {
      ConfigureResponse configured = p.call("Configure", ConfigureRequest.newBuilder().setConfig(settings.config())
          .setRuntimeName("crigate").setRuntimeVersion(NriServices.NRI_VERSION)
          .setRegistrationTimeout(settings.registrationTimeout().toMillis())
          .setRequestTimeout(settings.requestTimeout().toMillis()).build(), ConfigureResponse.parser(),
          settings.registrationTimeout());
      p.configured(configured.getEvents());
      synchronize(p);
      insertInOrder(p);
      LOG.info("NRI plugin {} (NRI {}) in service for {}", p.id(), version.isEmpty() ? "before 0.2" : version,
          Events.of(configured.getEvents()));
    } catch (RuntimeException e) {
      LOG.warn("NRI plugin {} failed to set up, dropped: {}", p.id(), e.getMessage());
      p.drop("setup failed");
    }
  }

  private synchronized void insertInOrder(HostedPlugin p) {
    List<HostedPlugin> sorted = new ArrayList<>(plugins);
    sorted.add(p);
    sorted.sort(null);
    plugins.clear();
    plugins.addAll(sorted);
  }

  /** Sends the state in parts under {@link #SYNC_PART_BYTES}, each but the last marked {@code more}. */
  private void synchronize(HostedPlugin p) {
    State s = state.get();
    List<ContainerUpdate> updates = new ArrayList<>();
    SynchronizeRequest.Builder part = SynchronizeRequest.newBuilder();
    for (PodSandbox pod : s.pods()) {
      part = flushIfFull(p, part, pod.getSerializedSize(), updates);
      part.addPods(pod);
    }
    for (Container c : s.containers()) {
      part = flushIfFull(p, part, c.getSerializedSize(), updates);
      part.addContainers(c);
    }
    SynchronizeResponse last = p.call("Synchronize", part.build(), SynchronizeResponse.parser(), settings.requestTimeout());
    updates.addAll(last.getUpdateList());
    List<ContainerUpdate> failed = updater.apply(updates);
    if (!failed.isEmpty()) {
      LOG.warn("NRI plugin {}: {} synchronize updates could not be applied", p.id(), failed.size());
    }
  }

  private SynchronizeRequest.Builder flushIfFull(HostedPlugin p, SynchronizeRequest.Builder part, int adding,
      List<ContainerUpdate> updates) {
    if (part.getPodsCount() + part.getContainersCount() == 0 || part.build().getSerializedSize() + adding < SYNC_PART_BYTES) {
      return part;
    }
    SynchronizeResponse r = p.call("Synchronize", part.setMore(true).build(), SynchronizeResponse.parser(),
        settings.requestTimeout());
    updates.addAll(r.getUpdateList());
    return SynchronizeRequest.newBuilder();
  }

  public void runPodSandbox(PodSandbox pod) {
    notify(Event.RUN_POD_SANDBOX, "RunPodSandbox", RunPodSandboxRequest.newBuilder().setPod(pod).build(),
        RunPodSandboxResponse.parser());
  }

  public void stopPodSandbox(PodSandbox pod) {
    notify(Event.STOP_POD_SANDBOX, "StopPodSandbox", StopPodSandboxRequest.newBuilder().setPod(pod).build(),
        StopPodSandboxResponse.parser());
  }

  public void removePodSandbox(PodSandbox pod) {
    notify(Event.REMOVE_POD_SANDBOX, "RemovePodSandbox", RemovePodSandboxRequest.newBuilder().setPod(pod).build(),
        RemovePodSandboxResponse.parser());
  }

  /**
   * A pod's resources change (CRI UpdatePodSandboxResources). v0.12.2's answer carries nothing, so
   * plugins are only told, in index order.
   */
  public void updatePodSandbox(PodSandbox pod, LinuxResources overhead, LinuxResources resources) {
    notify(Event.UPDATE_POD_SANDBOX, "UpdatePodSandbox", UpdatePodSandboxRequest.newBuilder().setPod(pod)
        .setOverheadLinuxResources(overhead).setLinuxResources(resources).build(), UpdatePodSandboxResponse.parser());
  }

  public void postUpdatePodSandbox(PodSandbox pod) {
    notify(Event.POST_UPDATE_POD_SANDBOX, "PostUpdatePodSandbox", PostUpdatePodSandboxRequest.newBuilder().setPod(pod).build(),
        PostUpdatePodSandboxResponse.parser());
  }

  /** Calls every subscribed plugin in order, merges their adjustments and updates, and starts their evictions. */
  public Creation createContainer(PodSandbox pod, Container container) {
    AdjustmentMerge merge = new AdjustmentMerge();
    CreateContainerRequest request = CreateContainerRequest.newBuilder().setPod(pod).setContainer(container).build();
    each(Event.CREATE_CONTAINER, "CreateContainer", request, CreateContainerResponse.parser(), (p, r) -> {
      merge.adjust(p.id(), r.getAdjust());
      merge.update(p.id(), r.getUpdateList());
      evict(p, r.getEvictList());
      return null;
    });
    return new Creation(merge.adjustment(), merge.updates(), merge.owners());
  }

  public void postCreateContainer(PodSandbox pod, Container container) {
    notify(Event.POST_CREATE_CONTAINER, "PostCreateContainer",
        PostCreateContainerRequest.newBuilder().setPod(pod).setContainer(container).build(), PostCreateContainerResponse.parser());
  }

  public void startContainer(PodSandbox pod, Container container) {
    notify(Event.START_CONTAINER, "StartContainer",
        StartContainerRequest.newBuilder().setPod(pod).setContainer(container).build(), StartContainerResponse.parser());
  }

  public void postStartContainer(PodSandbox pod, Container container) {
    notify(Event.POST_START_CONTAINER, "PostStartContainer",
        PostStartContainerRequest.newBuilder().setPod(pod).setContainer(container).build(), PostStartContainerResponse.parser());
  }

  /** The merged updates plugins ask for when a container's resources change. */
  public List<ContainerUpdate> updateContainer(PodSandbox pod, Container container, LinuxResources resources) {
    AdjustmentMerge merge = new AdjustmentMerge();
    UpdateContainerRequest request = UpdateContainerRequest.newBuilder().setPod(pod).setContainer(container)
        .setLinuxResources(resources).build();
    each(Event.UPDATE_CONTAINER, "UpdateContainer", request, UpdateContainerResponse.parser(), (p, r) -> {
      merge.update(p.id(), r.getUpdateList());
      evict(p, r.getEvictList());
      return null;
    });
    return merge.updates();
  }

  public void postUpdateContainer(PodSandbox pod, Container container) {
    notify(Event.POST_UPDATE_CONTAINER, "PostUpdateContainer",
        PostUpdateContainerRequest.newBuilder().setPod(pod).setContainer(container).build(), PostUpdateContainerResponse.parser());
  }

  public List<ContainerUpdate> stopContainer(PodSandbox pod, Container container) {
    AdjustmentMerge merge = new AdjustmentMerge();
    StopContainerRequest request = StopContainerRequest.newBuilder().setPod(pod).setContainer(container).build();
    each(Event.STOP_CONTAINER, "StopContainer", request, StopContainerResponse.parser(), (p, r) -> {
      merge.update(p.id(), r.getUpdateList());
      return null;
    });
    return merge.updates();
  }

  public void removeContainer(PodSandbox pod, Container container) {
    notify(Event.REMOVE_CONTAINER, "RemoveContainer",
        RemoveContainerRequest.newBuilder().setPod(pod).setContainer(container).build(), RemoveContainerResponse.parser());
  }

  /** As containerd's NRI does, an eviction a plugin asks for, in an answer or unsolicited, stops the container. */
  private void evict(HostedPlugin p, List<io.crigate.api.nri.v1alpha1.ContainerEviction> evictions) {
    if (evictions.isEmpty()) {
      return;
    }
    LOG.warn("NRI plugin {} asked to evict {}; stopping them", p.id(),
        evictions.stream().map(e -> e.getContainerId() + " (" + e.getReason() + ")").toList());
    evictions.forEach(e -> stopper.stop(e.getContainerId(), "NRI plugin " + p.id(), e.getReason()));
  }

  private <R> void notify(Event event, String method, MessageLite request, Parser<R> parser) {
    each(event, method, request, parser, (p, r) -> null);
  }

  private <R> void each(Event event, String method, MessageLite request, Parser<R> parser,
      BiFunction<HostedPlugin, R, Void> use) {
    for (HostedPlugin p : plugins) {
      if (!p.subscribes(event)) {
        continue;
      }
      R answer;
      try {
        answer = p.call(method, request, parser, settings.requestTimeout());
      } catch (TtrpcException e) {
        if (e.code() == Code.DEADLINE_EXCEEDED || e.code() == Code.UNAVAILABLE) {
          LOG.warn("NRI plugin {} did not answer {} ({}); dropped, the request goes on without it", p.id(), method, e.getMessage());
          plugins.remove(p);
          p.drop(e.getMessage());
          continue;
        }
        if (settings.failOnPluginError()) {
          throw new CrigateException.FailedPrecondition("NRI plugin %s failed %s: %s".formatted(p.id(), method, e.status().getMessage()));
        }
        LOG.warn("NRI plugin {} failed {}: {}; ignored by the failure policy", p.id(), method, e.getMessage());
        continue;
      }
      use.apply(p, answer);
    }
  }

  @Override
  public void close() {
    closing = true;
    if (listener != null) {
      listener.close().syncUninterruptibly();
    }
    plugins.forEach(p -> p.drop("runtime closed"));
    try {
      Files.deleteIfExists(settings.socket());
    } catch (IOException e) {
      // replaced at the next start
    }
  }
}
