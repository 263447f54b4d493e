package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.InitContext;
import io.crigate.spi.Streams;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.testsupport.InMemoryBackend;
import io.crigate.transport.EventLoops;
import io.crigate.transport.UnixSocketChannel;
import io.grpc.CallOptions;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which calls a whole gateway relays below the gRPC call layer and which it still serves itself.
 * Each backend is an in-memory runtime behind a real gRPC server on a unix socket, reached by
 * crigate both ways: through its non-blocking form (a gRPC client, as the CRI backend has) and as
 * a pass-through socket for the relay. The server notes, per call, whether it arrived with the
 * test client's own metadata, which only a relayed stream carries: crigate's own client calls
 * start afresh.
 */
class RelayRoutesTest {

  static final Metadata.Key<String> CLIENT_MARK = Metadata.Key.of("x-test-client", Metadata.ASCII_STRING_MARSHALLER);
  static final String RELAYED = "relayed";
  static final String CALL_LAYER = "call layer";
  static final String ONE_BACKEND = """
      backends:
        - {name: default, type: served, handlers: [default]}
      """;

  @TempDir
  Path dir;

  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<String> observed = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();
  private final Map<String, InMemoryBackend> memories = new ConcurrentHashMap<>();
  private final EventLoopGroup runtimeLoops = EventLoops.epoll(1, "served-runtimes");
  /** Whether the served runtimes fail RemoveContainer (INTERNAL), as a runtime in trouble would. */
  private volatile boolean failRemovals;

  @AfterEach
  void stopServers() throws Exception {
    for (AutoCloseable server : servers) {
      server.close();
    }
    EventLoops.shutdown(runtimeLoops, 2);
  }

  @Test
  void statusCallsOfRecordedObjectsAreRelayedAndUnknownIdsTakeTheCallLayer() throws Exception {
    try (Node node = nodeWithOnePod("""
        backends:
          - {name: default, type: served, handlers: [default]}
          - {name: gpu, type: served, handlers: [gpu]}
        """, "off:.*", "gpu")) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String pod = node.pod();
      String container = node.container();

      assertThat(kubelet.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(pod).build())
          .getStatus().getId()).isEqualTo(pod);
      assertThat(kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build())
          .getStatus().getMetadata().getName()).isEqualTo("app");
      assertThat(seen).containsExactly("gpu PodSandboxStatus " + RELAYED, "gpu ContainerStatus " + RELAYED);
      // the relay reports a call's end as it passes the trailers on
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(observed).containsExactly("PodSandboxStatus OK", "ContainerStatus OK"));

      // the runtime's own error passes through, and is counted
      memories.get("gpu").removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());
      assertThatThrownBy(() -> kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).isEqualTo("container %s on gpu".formatted(container));
          });
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(observed).endsWith("ContainerStatus NOT_FOUND"));

      // an id crigate has no record of: the call layer asks every backend, and says so itself
      seen.clear();
      assertThatThrownBy(() -> kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId("nope").build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).isEqualTo("container nope");
          });
      assertThat(seen).as("nothing relayed; the miss probes the backends' blocking form").isEmpty();

      // merged lists of two backends stay in the call layer
      seen.clear();
      assertThat(kubelet.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList()).isEmpty();
      assertThat(seen).containsExactlyInAnyOrder("default ListContainers " + CALL_LAYER, "gpu ListContainers " + CALL_LAYER);
    }
  }

  @Test
  void theListsOfTheOnlyBackendAreRelayedUnlessFilteredById() throws Exception {
    try (Node node = nodeWithOnePod(ONE_BACKEND, "off:.*", "")) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String pod = node.pod();
      String container = node.container();

      assertThat(kubelet.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
          .extracting(Container::getId).containsExactly(container);
      assertThat(kubelet.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList())
          .extracting(PodSandbox::getId).containsExactly(pod);
      assertThat(seen).containsExactly("default ListContainers " + RELAYED, "default ListPodSandbox " + RELAYED);

      // an id filter matches by prefix in core, which a runtime may not: the call layer applies it
      seen.clear();
      assertThat(kubelet.listContainers(ListContainersRequest.newBuilder()
          .setFilter(ContainerFilter.newBuilder().setPodSandboxId(pod.substring(0, 9))).build()).getContainersList())
          .extracting(Container::getId).containsExactly(container);
      assertThat(seen).containsExactly("default ListContainers " + CALL_LAYER);
    }
  }

  @Test
  void dumpedMethodsAndCallsThatRecordKeepTheCallLayerWhileStartStopAndRemoveAreRelayed() throws Exception {
    try (Node node = nodeWithOnePod(ONE_BACKEND, "full:ContainerStatus", "")) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String pod = node.pod();
      String container = node.container();

      kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build());
      kubelet.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(pod).build());
      kubelet.startContainer(StartContainerRequest.newBuilder().setContainerId(container).build());
      assertThat(memories.get("default").listContainers(ListContainersRequest.getDefaultInstance()).getContainers(0).getState())
          .isEqualTo(ContainerState.CONTAINER_RUNNING);
      kubelet.stopContainer(StopContainerRequest.newBuilder().setContainerId(container).build());
      kubelet.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());

      assertThat(seen).containsExactly("default ContainerStatus " + CALL_LAYER, "default PodSandboxStatus " + RELAYED,
          "default StartContainer " + RELAYED, "default StopContainer " + RELAYED, "default RemoveContainer " + RELAYED);
      assertThat(memories.get("default").listContainers(ListContainersRequest.getDefaultInstance()).getContainersList()).isEmpty();
      // the relayed removal dropped the record: a start of the container takes the call layer, which looks for its owner
      seen.clear();
      assertThatThrownBy(() -> kubelet.startContainer(StartContainerRequest.newBuilder().setContainerId(container).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
      assertThat(seen).doesNotContain("default StartContainer " + RELAYED);
    }
    assertThat(dir.resolve("dump.jsonl")).content().contains("\"method\":\"ContainerStatus\"");
  }

  @Test
  void startStopAndRemovalOfObjectsAPluginFollowsKeepTheCallLayer() throws Exception {
    Listening listening = new Listening(new CopyOnWriteArrayList<>());
    try (Node node = nodeWithOnePod(ONE_BACKEND, "off:.*", "", environment -> List.of(listening))) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String container = node.container();

      kubelet.startContainer(StartContainerRequest.newBuilder().setContainerId(container).build());
      kubelet.stopContainer(StopContainerRequest.newBuilder().setContainerId(container).build());
      kubelet.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());
      kubelet.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(node.pod()).build());

      // the call layer reaches this runtime's blocking form for the removals, which is not noted
      assertThat(seen).containsExactly("default StartContainer " + CALL_LAYER, "default StopContainer " + CALL_LAYER);
      assertThat(listening.heard()).containsExactly("start " + container, "stop " + container, "remove " + container,
          "remove pod " + node.pod());
    }
  }

  /**
   * A removal that no plugin follows is only a forward and a dropped record, so it is relayed; the
   * record is gone by the time the answer arrives, and the kubelet may create again at once.
   */
  @Test
  void removalsNoPluginFollowsAreRelayedAndDropTheRecordBeforeTheAnswer() throws Exception {
    try (Node node = nodeWithOnePod(ONE_BACKEND, "off:.*", "")) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String pod = node.pod();
      String container = node.container();

      kubelet.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());
      assertThat(seen).containsExactly("default RemoveContainer " + RELAYED);
      assertNotRecorded(kubelet, container, "container");
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(observed).contains("RemoveContainer OK"));

      // created again right after, in the same pod: recorded and relayed as before
      String again = createContainer(kubelet, pod);
      seen.clear();
      kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(again).build());
      assertThat(seen).containsExactly("default ContainerStatus " + RELAYED);

      kubelet.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
      seen.clear();
      kubelet.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
      assertThat(seen).containsExactly("default RemovePodSandbox " + RELAYED);
      assertNotRecorded(kubelet, again, "container");
      assertNotRecorded(kubelet, pod, "sandbox");

      String next = runPod(kubelet, "web", "");
      seen.clear();
      kubelet.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(next).build());
      assertThat(seen).containsExactly("default PodSandboxStatus " + RELAYED);
    }
  }

  /**
   * The runtime's NOT_FOUND means it has nothing left to own: the record goes too, and the answer
   * passes as the runtime gave it. Any other error keeps the record, so the kubelet's retry is relayed.
   */
  @Test
  void aRelayedRemovalDropsTheRecordOnNotFoundButKeepsItOnOtherErrors() throws Exception {
    try (Node node = nodeWithOnePod(ONE_BACKEND, "off:.*", "")) {
      RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = node.kubelet();
      String container = node.container();

      failRemovals = true;
      assertThatThrownBy(() -> kubelet.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL));
      failRemovals = false;
      seen.clear();
      kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build());
      assertThat(seen).as("still recorded").containsExactly("default ContainerStatus " + RELAYED);

      memories.get("default").removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());
      seen.clear();
      assertThatThrownBy(() -> kubelet.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).isEqualTo("container %s on default".formatted(container));
          });
      assertThat(seen).containsExactly("default RemoveContainer " + RELAYED);
      assertNotRecorded(kubelet, container, "container");
    }
  }

  /**
   * Asks for {@code id}'s status: without a record the call layer asks every backend (their blocking
   * form, not noted) and answers NOT_FOUND itself; a record left would have relayed the call.
   */
  private void assertNotRecorded(RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet, String id, String kind) {
    seen.clear();
    assertThatThrownBy(() -> {
      if (kind.equals("container")) {
        kubelet.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build());
      } else {
        kubelet.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(id).build());
      }
    }).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(e.getStatus().getDescription()).as("crigate's own answer").isEqualTo(kind + " " + id);
    });
    assertThat(seen).as("no record of %s %s", kind, id).isEmpty();
  }

  /** A plugin that follows every container and notes the starts and stops it hears of. */
  private record Listening(List<String> heard) implements AdjustmentPlugin {
    @Override
    public PluginResult startContainer(PodContext pod, ContainerContext container) {
      return note("start", container);
    }

    @Override
    public PluginResult stopContainer(PodContext pod, ContainerContext container) {
      return note("stop", container);
    }

    @Override
    public PluginResult removeContainer(PodContext pod, ContainerContext container) {
      return note("remove", container);
    }

    @Override
    public PluginResult removePodSandbox(PodContext pod) {
      heard.add("remove pod " + pod.id());
      return PluginResult.NONE;
    }

    @Override
    public String name() {
      return "listening";
    }

    private PluginResult note(String event, ContainerContext container) {
      heard.add(event + " " + container.id());
      return PluginResult.NONE;
    }
  }

  /** A gateway, the test kubelet's connection to it, and one pod with one container created through it. */
  private record Node(Gateway gateway, UnixSocketChannel channel, RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet,
      String pod, String container) implements AutoCloseable {
    @Override
    public void close() {
      channel.close();
      gateway.close();
    }
  }

  /** Starts {@code backends} with {@code dump} rules and creates a pod on {@code handler}; what the runtimes saw so far is forgotten. */
  private Node nodeWithOnePod(String backends, String dump, String handler) throws IOException {
    return nodeWithOnePod(backends, dump, handler, AdjustmentPlugins.NONE);
  }

  /** As above, with {@code plugins} in the request path. */
  private Node nodeWithOnePod(String backends, String dump, String handler, AdjustmentPlugins plugins) throws IOException {
    Gateway gateway = start(backends, dump, plugins);
    UnixSocketChannel channel = UnixSocketChannel.open(gateway.socket(), "relay-test-client");
    RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = kubelet(channel);
    String pod = runPod(kubelet, "web", handler);
    String container = createContainer(kubelet, pod);
    seen.clear();
    return new Node(gateway, channel, kubelet, pod, container);
  }

  private Gateway start(String backends, String dump, AdjustmentPlugins plugins) throws IOException {
    Path file = Files.writeString(dir.resolve("crigate.yaml"), backends);
    GatewayConfig config = ConfigLoader.load(new ConfigFlags(file.toString(), dir.resolve("crigate.sock").toString(),
        dir.resolve("state").toString(), null, dump, dir.resolve("dump.jsonl").toString(), "json", null, null));
    BackendFactory served = new BackendFactory() {
      @Override
      public String type() {
        return "served";
      }

      @Override
      public Backend create(InitContext context) {
        return served(context.name());
      }
    };
    return Gateway.start(config, Map.of("served", served), new Gateway.Extensions(nodeImages -> ImageObserver.NONE,
        plugins, Streams.NONE, new PrometheusRegistry(), List.of(), nanos -> {},
        (method, code, nanos) -> observed.add(method + " " + code)));
  }

  /** An in-memory runtime behind a gRPC server; crigate calls it through a gRPC client and may relay to it. */
  private Backend served(String name) {
    InMemoryBackend memory = new InMemoryBackend(name);
    memories.put(name, memory);
    Path socket = dir.resolve(name + ".sock");
    Server server;
    try {
      server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
          .channelType(EpollServerDomainSocketChannel.class)
          .bossEventLoopGroup(runtimeLoops)
          .workerEventLoopGroup(runtimeLoops)
          .addService(ServerInterceptors.intercept(new ServedRuntime(name, memory), GrpcErrors.interceptor(), noting(name)))
          .build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    UnixSocketChannel client = UnixSocketChannel.open(socket, "served-" + name);
    servers.add(() -> {
      client.close();
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    });
    AsyncCalls async = new AsyncCalls() {
      @Override
      public <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request, Optional<Duration> timeout) {
        CompletableFuture<R> reply = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(client.channel().newCall(method, CallOptions.DEFAULT), request, new StreamObserver<>() {
          @Override
          public void onNext(R value) {
            reply.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            reply.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
        return reply;
      }

      @Override
      public Optional<Path> passThrough() {
        return Optional.of(socket);
      }
    };
    return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class}, (proxy, method, args) -> {
      if (method.getName().equals("async") && method.getParameterCount() == 0) {
        return Optional.of(async);
      }
      try {
        return method.invoke(memory, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  private ServerInterceptor noting(String backend) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getBareMethodName();
        String how = headers.containsKey(CLIENT_MARK) ? RELAYED : CALL_LAYER;
        return new SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
          @Override
          public void onHalfClose() {
            if (!method.equals("Status")) { // the health probe's, not the test's
              seen.add(backend + " " + method + " " + how);
            }
            super.onHalfClose();
          }
        };
      }
    };
  }

  private static RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet(UnixSocketChannel channel) {
    Metadata mark = new Metadata();
    mark.put(CLIENT_MARK, "1");
    return RuntimeServiceGrpc.newBlockingStub(channel.channel()).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(mark))
        .withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static String runPod(RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet, String name, String handler) {
    return kubelet.runPodSandbox(RunPodSandboxRequest.newBuilder().setRuntimeHandler(handler).setConfig(PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("default").setUid("uid-" + name))).build())
        .getPodSandboxId();
  }

  private static String createContainer(RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet, String pod) {
    return kubelet.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(pod).setConfig(ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("app")).setImage(ImageSpec.newBuilder().setImage("registry.local/app")))
        .build()).getContainerId();
  }

  /** The runtime calls crigate makes or relays, answered by the in-memory runtime. */
  private final class ServedRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    private final String name;
    private final InMemoryBackend memory;

    ServedRuntime(String name, InMemoryBackend memory) {
      this.name = name;
      this.memory = memory;
    }

    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> reply) {
      Replies.unary(reply, memory.status(request));
    }

    @Override
    public void podSandboxStatus(PodSandboxStatusRequest request, StreamObserver<PodSandboxStatusResponse> reply) {
      Replies.unary(reply, memory.podSandboxStatus(request));
    }

    @Override
    public void containerStatus(ContainerStatusRequest request, StreamObserver<ContainerStatusResponse> reply) {
      Replies.unary(reply, memory.containerStatus(request));
    }

    @Override
    public void startContainer(StartContainerRequest request, StreamObserver<StartContainerResponse> reply) {
      Replies.unary(reply, memory.startContainer(request));
    }

    @Override
    public void stopContainer(StopContainerRequest request, StreamObserver<StopContainerResponse> reply) {
      Replies.unary(reply, memory.stopContainer(request));
    }

    /** Unlike containerd and CRI-O, NOT_FOUND for an id it does not have, so that answer is tested too. */
    @Override
    public void removeContainer(RemoveContainerRequest request, StreamObserver<RemoveContainerResponse> reply) {
      if (failRemovals) {
        reply.onError(Status.INTERNAL.withDescription("removal failed").asRuntimeException());
        return;
      }
      if (memory.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList().stream()
          .noneMatch(container -> container.getId().equals(request.getContainerId()))) {
        reply.onError(Status.NOT_FOUND.withDescription("container %s on %s".formatted(request.getContainerId(), name))
            .asRuntimeException());
        return;
      }
      Replies.unary(reply, memory.removeContainer(request));
    }

    @Override
    public void stopPodSandbox(StopPodSandboxRequest request, StreamObserver<StopPodSandboxResponse> reply) {
      Replies.unary(reply, memory.stopPodSandbox(request));
    }

    @Override
    public void removePodSandbox(RemovePodSandboxRequest request, StreamObserver<RemovePodSandboxResponse> reply) {
      Replies.unary(reply, memory.removePodSandbox(request));
    }

    @Override
    public void listContainers(ListContainersRequest request, StreamObserver<ListContainersResponse> reply) {
      Replies.unary(reply, memory.listContainers(request));
    }

    @Override
    public void listPodSandbox(ListPodSandboxRequest request, StreamObserver<ListPodSandboxResponse> reply) {
      Replies.unary(reply, memory.listPodSandbox(request));
    }
  }
}
