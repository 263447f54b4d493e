package io.crigate.cli.ctl;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.CreateContainerResponse;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import io.crigate.api.cri.v1.RemovePodSandboxResponse;
import io.crigate.api.cri.v1.StartContainerRequest;
import io.crigate.api.cri.v1.StartContainerResponse;
import io.crigate.api.cri.v1.StopPodSandboxRequest;
import io.crigate.api.cri.v1.StopPodSandboxResponse;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import io.crigate.api.cri.v1.ExecSyncRequest;
import io.crigate.api.cri.v1.ExecSyncResponse;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListContainersResponse;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.ListPodSandboxResponse;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.RemoveContainerRequest;
import io.crigate.api.cri.v1.RemoveContainerResponse;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.api.cri.v1.RunPodSandboxResponse;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceImplBase;
import io.crigate.api.cri.v1.StopContainerRequest;
import io.crigate.api.cri.v1.StopContainerResponse;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import io.crigate.api.cri.v1.*;
import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.AttachResponse;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.ExecResponse;
import io.crigate.spi.StreamIo;
import io.crigate.spi.StreamingRuntime;
import io.crigate.streaming.StreamingServer;
import io.crigate.streaming.StreamingSettings;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A CRI runtime service on a real unix socket (grpc-netty over epoll, as crigate serves) whose
 * pods and containers a test sets, recording the mutating calls it receives in order. Calls it
 * does not implement answer UNIMPLEMENTED, as a real server would.
 */
final class FakeCriServer extends RuntimeServiceImplBase implements AutoCloseable {

  final List<PodSandbox> pods = new CopyOnWriteArrayList<>();
  final List<Container> containers = new CopyOnWriteArrayList<>();
  final Map<String, String> logPaths = new ConcurrentHashMap<>();
  final List<String> calls = new CopyOnWriteArrayList<>();
  volatile Status removeFailure;
  volatile Status createFailure;
  volatile boolean versionHangs;

  private final EventLoopGroup eventLoop =
      new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
  private final Server server;
  final String endpoint;

  FakeCriServer(Path socket) throws IOException {
    server =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(eventLoop)
            .workerEventLoopGroup(eventLoop)
            .addService(this)
            .build()
            .start();
    endpoint = "unix://" + socket;
  }

  @Override
  public void version(VersionRequest request, StreamObserver<VersionResponse> response) {
    if (versionHangs) {
      return; // never answers: the client's deadline must end the call
    }
    response.onNext(VersionResponse.newBuilder().setRuntimeName("fake").setVersion("0.1.0").build());
    response.onCompleted();
  }

  @Override
  public void listPodSandbox(ListPodSandboxRequest request, StreamObserver<ListPodSandboxResponse> response) {
    String id = request.getFilter().getId();
    response.onNext(
        ListPodSandboxResponse.newBuilder()
            .addAllItems(pods.stream().filter(p -> id.isEmpty() || p.getId().equals(id)).toList())
            .build());
    response.onCompleted();
  }

  @Override
  public void listContainers(ListContainersRequest request, StreamObserver<ListContainersResponse> response) {
    var filter = request.getFilter();
    response.onNext(
        ListContainersResponse.newBuilder()
            .addAllContainers(
                containers.stream()
                    .filter(c -> filter.getPodSandboxId().isEmpty() || c.getPodSandboxId().equals(filter.getPodSandboxId()))
                    .filter(c -> !filter.hasState() || c.getState() == filter.getState().getState())
                    .toList())
            .build());
    response.onCompleted();
  }

  @Override
  public void containerStatus(ContainerStatusRequest request, StreamObserver<ContainerStatusResponse> response) {
    calls.add("ContainerStatus " + request.getContainerId());
    Container c = containers.stream().filter(x -> x.getId().equals(request.getContainerId())).findFirst().orElse(null);
    if (c == null) {
      response.onError(Status.NOT_FOUND.withDescription("container " + request.getContainerId()).asRuntimeException());
      return;
    }
    response.onNext(
        ContainerStatusResponse.newBuilder()
            .setStatus(
                ContainerStatus.newBuilder()
                    .setId(c.getId())
                    .setState(c.getState())
                    .setLogPath(logPaths.getOrDefault(c.getId(), "")))
            .putInfo("info", "{\"pid\": 42}")
            .build());
    response.onCompleted();
  }

  @Override
  public void stopContainer(StopContainerRequest request, StreamObserver<StopContainerResponse> response) {
    calls.add("StopContainer " + request.getContainerId() + " timeout=" + request.getTimeout());
    response.onNext(StopContainerResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void removeContainer(RemoveContainerRequest request, StreamObserver<RemoveContainerResponse> response) {
    calls.add("RemoveContainer " + request.getContainerId());
    if (removeFailure != null) {
      response.onError(removeFailure.asRuntimeException());
      return;
    }
    response.onNext(RemoveContainerResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void runPodSandbox(RunPodSandboxRequest request, StreamObserver<RunPodSandboxResponse> response) {
    calls.add("RunPodSandbox " + request.getConfig().getMetadata().getName() + " handler=" + request.getRuntimeHandler());
    response.onNext(RunPodSandboxResponse.newBuilder().setPodSandboxId("new-pod-id").build());
    response.onCompleted();
  }

  @Override
  public void createContainer(CreateContainerRequest request, StreamObserver<CreateContainerResponse> response) {
    calls.add("CreateContainer " + request.getPodSandboxId() + " " + request.getConfig().getMetadata().getName());
    if (createFailure != null) {
      response.onError(createFailure.asRuntimeException());
      return;
    }
    response.onNext(CreateContainerResponse.newBuilder().setContainerId("new-container-id").build());
    response.onCompleted();
  }

  @Override
  public void startContainer(StartContainerRequest request, StreamObserver<StartContainerResponse> response) {
    calls.add("StartContainer " + request.getContainerId());
    response.onNext(StartContainerResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void stopPodSandbox(StopPodSandboxRequest request, StreamObserver<StopPodSandboxResponse> response) {
    calls.add("StopPodSandbox " + request.getPodSandboxId());
    response.onNext(StopPodSandboxResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void removePodSandbox(RemovePodSandboxRequest request, StreamObserver<RemovePodSandboxResponse> response) {
    calls.add("RemovePodSandbox " + request.getPodSandboxId());
    response.onNext(RemovePodSandboxResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void execSync(ExecSyncRequest request, StreamObserver<ExecSyncResponse> response) {
    calls.add("ExecSync " + request.getContainerId() + " " + request.getCmdList());
    response.onNext(
        ExecSyncResponse.newBuilder()
            .setStdout(ByteString.copyFrom("out:" + String.join(" ", request.getCmdList()) + "\n", StandardCharsets.UTF_8))
            .setStderr(ByteString.copyFrom("err\n", StandardCharsets.UTF_8))
            .setExitCode(7)
            .build());
    response.onCompleted();
  }

  /** Exec and Attach are served by crigate's streaming server, with "commands" that shout their stdin back. */
  private final StreamingServer streams = StreamingServer.create(StreamingSettings.defaults());
  private final StreamingRuntime shout = new StreamingRuntime() {
    @Override
    public int exec(ExecRequest request, StreamIo io) {
      try {
        io.stdout().write(new String(io.stdin().readAllBytes(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT)
            .getBytes(StandardCharsets.UTF_8));
        io.stderr().write(("ran " + request.getCmdList() + "\n").getBytes(StandardCharsets.UTF_8));
        return 5;
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public void attach(AttachRequest request, StreamIo io) {
      try {
        io.stdout().write("attached to ".concat(request.getContainerId()).getBytes(StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  };

  @Override
  public void exec(ExecRequest request, StreamObserver<ExecResponse> response) {
    calls.add("Exec " + request.getContainerId() + " " + request.getCmdList() + " stdin=" + request.getStdin()
        + " tty=" + request.getTty());
    response.onNext(streams.exec(request, shout));
    response.onCompleted();
  }

  @Override
  public void attach(AttachRequest request, StreamObserver<AttachResponse> response) {
    calls.add("Attach " + request.getContainerId() + " stdin=" + request.getStdin());
    response.onNext(streams.attach(request, shout));
    response.onCompleted();
  }

  @Override
  public void listContainerStats(ListContainerStatsRequest request, StreamObserver<ListContainerStatsResponse> response) {
    calls.add("ListContainerStats " + request.getFilter().getId());
    response.onNext(ListContainerStatsResponse.newBuilder().addStats(ContainerStats.newBuilder()
        .setAttributes(ContainerAttributes.newBuilder().setId(request.getFilter().getId())
            .setMetadata(ContainerMetadata.newBuilder().setName("nginx")))
        .setCpu(CpuUsage.newBuilder().setUsageNanoCores(UInt64Value.newBuilder().setValue(1500)))
        .setMemory(MemoryUsage.newBuilder().setWorkingSetBytes(UInt64Value.newBuilder().setValue(2_000_000))))
        .build());
    response.onCompleted();
  }

  @Override
  public void listPodSandboxStats(ListPodSandboxStatsRequest request, StreamObserver<ListPodSandboxStatsResponse> response) {
    calls.add("ListPodSandboxStats " + request.getFilter().getId());
    response.onNext(ListPodSandboxStatsResponse.newBuilder().addStats(PodSandboxStats.newBuilder()
        .setAttributes(PodSandboxAttributes.newBuilder().setId(pods.getFirst().getId())
            .setMetadata(pods.getFirst().getMetadata()))
        .setLinux(LinuxPodSandboxStats.newBuilder()
            .setCpu(CpuUsage.newBuilder().setUsageNanoCores(UInt64Value.newBuilder().setValue(2500)))))
        .build());
    response.onCompleted();
  }

  @Override
  public void updateContainerResources(UpdateContainerResourcesRequest request,
      StreamObserver<UpdateContainerResourcesResponse> response) {
    calls.add("UpdateContainerResources " + request.getContainerId() + " quota=" + request.getLinux().getCpuQuota()
        + " memory=" + request.getLinux().getMemoryLimitInBytes());
    response.onNext(UpdateContainerResourcesResponse.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> response) {
    response.onNext(ContainerEventResponse.newBuilder().setContainerId(containers.getFirst().getId())
        .setContainerEventType(ContainerEventType.CONTAINER_STOPPED_EVENT).setCreatedAt(1_000_000_000L).build());
    response.onCompleted();
  }

  @Override
  public void close() throws InterruptedException {
    streams.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
