package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.testsupport.InMemoryBackend;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A crigate router served in-process, exactly as {@code serve} wires it (real services behind the
 * error interceptor), over two in-memory backends: {@code alpha} for the default handler and
 * {@code beta} for handler {@code fast}, which beta knows as {@code runsc}.
 */
final class RouterHarness implements AutoCloseable {

  static final List<HandlerBinding> BINDINGS = List.of(
      new HandlerBinding(HandlerBinding.DEFAULT_HANDLER, "alpha", ""),
      new HandlerBinding("fast", "beta", "runsc"));

  final InMemoryBackend alpha;
  final InMemoryBackend beta;
  final GatewayState state;
  final CriRouter router;
  final RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime;
  final RuntimeServiceGrpc.RuntimeServiceStub asyncRuntime;
  final ImageServiceGrpc.ImageServiceBlockingStub images;
  private final Path stateDir;
  private final Server server;
  private final ManagedChannel channel;
  private final ScheduledExecutorService timers;

  private final AdjustmentPlugins plugins;
  private final PluginChain chain;

  private RouterHarness(Path stateDir, InMemoryBackend alpha, InMemoryBackend beta, boolean reconcile,
      ImageObserver.Factory imageObservers) {
    this(stateDir, alpha, beta, reconcile, imageObservers, AdjustmentPlugins.NONE);
  }

  private RouterHarness(Path stateDir, InMemoryBackend alpha, InMemoryBackend beta, boolean reconcile,
      ImageObserver.Factory imageObservers, AdjustmentPlugins plugins) {
    this.plugins = plugins;
    this.stateDir = stateDir;
    this.alpha = alpha;
    this.beta = beta;
    this.state = GatewayState.open(stateDir);
    this.timers = Executors.newSingleThreadScheduledExecutor();
    this.router = CriRouter.create(Map.<String, Backend>of("alpha", alpha, "beta", beta), BINDINGS, Map.of(), state,
        imageObservers, timers);
    if (reconcile) {
      router.reconcile();
    }
    this.chain = router.startAdjustments(plugins, stateDir, state, new PrometheusRegistry());
    // Tests count the calls crigate makes while serving, not those of start-up.
    alpha.resetCalls();
    beta.resetCalls();
    String serverName = InProcessServerBuilder.generateName();
    InProcessServerBuilder builder = InProcessServerBuilder.forName(serverName).directExecutor();
    router.services().forEach(service -> builder.addService(ServerInterceptors.intercept(service, GrpcErrors.interceptor())));
    try {
      this.server = builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.channel = InProcessChannelBuilder.forName(serverName).directExecutor().build();
    this.runtime = RuntimeServiceGrpc.newBlockingStub(channel);
    this.asyncRuntime = RuntimeServiceGrpc.newStub(channel);
    this.images = ImageServiceGrpc.newBlockingStub(channel);
  }

  static RouterHarness start(Path stateDir) {
    return start(stateDir, nodeImages -> ImageObserver.NONE);
  }

  /** As {@link #start(Path)}, with an image extension built the way {@code serve} builds it. */
  static RouterHarness start(Path stateDir, ImageObserver.Factory imageObservers) {
    return new RouterHarness(stateDir, new InMemoryBackend("alpha"), new InMemoryBackend("beta"), true,
        imageObservers);
  }

  /** As {@link #start(Path)}, with adjustment plugins in the request path. */
  static RouterHarness withPlugins(Path stateDir, AdjustmentPlugins plugins) {
    return new RouterHarness(stateDir, new InMemoryBackend("alpha"), new InMemoryBackend("beta"), true,
        nodeImages -> ImageObserver.NONE, plugins);
  }

  /** Stops crigate and starts it again on the same state directory and backends, as after a crash. */
  RouterHarness restart(boolean reconcile) {
    close();
    return new RouterHarness(stateDir, alpha, beta, reconcile, nodeImages -> ImageObserver.NONE, plugins);
  }

  /**
   * A second crigate on a copy of this one's state directory as a {@code kill -9} now would leave it
   * (the database file and its WAL, what has been committed), on the same backends; this one runs on.
   */
  RouterHarness crashedCopy(Path copy, boolean reconcile) throws IOException {
    Files.createDirectories(copy);
    for (String file : List.of(GatewayState.FILE_NAME, GatewayState.FILE_NAME + "-wal")) {
      if (Files.exists(stateDir.resolve(file))) {
        Files.copy(stateDir.resolve(file), copy.resolve(file));
      }
    }
    return new RouterHarness(copy, alpha, beta, reconcile, nodeImages -> ImageObserver.NONE, plugins);
  }

  String runPod(String name, String handler) {
    return runtime.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(PodSandboxConfig.newBuilder()
            .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("default").setUid("uid-" + name))
            .putLabels("app", name))
        .setRuntimeHandler(handler)
        .build()).getPodSandboxId();
  }

  String createContainer(String sandboxId, String name) {
    return runtime.createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId(sandboxId)
        .setConfig(ContainerConfig.newBuilder()
            .setMetadata(ContainerMetadata.newBuilder().setName(name))
            .setImage(ImageSpec.newBuilder().setImage("registry.local/" + name))
            .putLabels("container", name))
        .build()).getContainerId();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    chain.close();
    try {
      router.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    timers.shutdownNow();
    state.close();
  }
}
