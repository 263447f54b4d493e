package io.crigate.backend.cri;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.transport.UnixSocketChannel;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards every CRI call unchanged to a remote runtime over one pooled channel on crigate's shared
 * event loops. The non-blocking form ({@link #async()}) is what core uses for calls it only routes;
 * the blocking stubs serve the rest. Both pick up the caller's {@link io.grpc.Context}, so the
 * kubelet's deadline and cancellation reach the runtime without any code here. The runtime's own statuses pass through untouched; only an
 * UNAVAILABLE (the socket is down or refuses) becomes {@link CrigateException.Unavailable}, naming
 * this backend, so the operator sees which runtime is gone.
 */
final class RemoteCriBackend implements Backend, AsyncCalls {

  private static final Logger LOG = LoggerFactory.getLogger(RemoteCriBackend.class);

  private final String name;
  private final String endpoint;
  private final Path socket;
  private final UnixSocketChannel connection;
  private final RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime;
  private final RuntimeServiceGrpc.RuntimeServiceStub runtimeAsync;
  private final ImageServiceGrpc.ImageServiceBlockingStub images;

  RemoteCriBackend(String name, String endpoint, Path socket, UnixSocketChannel connection) {
    this.name = name;
    this.endpoint = endpoint;
    this.socket = socket;
    this.connection = connection;
    this.runtime = RuntimeServiceGrpc.newBlockingStub(connection.channel());
    this.runtimeAsync = RuntimeServiceGrpc.newStub(connection.channel());
    this.images = ImageServiceGrpc.newBlockingStub(connection.channel());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<AsyncCalls> async() {
    return Optional.of(this);
  }

  /** Every call goes to the runtime unchanged, so core may relay routed calls' streams there itself. */
  @Override
  public Optional<Path> passThrough() {
    return Optional.of(socket);
  }

  @Override
  public <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request, Optional<Duration> timeout) {
    connection.reconnectIfFailed();
    CallOptions options = timeout.map(limit -> CallOptions.DEFAULT.withDeadlineAfter(limit.toNanos(), TimeUnit.NANOSECONDS))
        .orElse(CallOptions.DEFAULT);
    return UnaryForward.start(connection.channel().newCall(method, options), request,
        status -> translate(method.getBareMethodName(), status));
  }

  @Override
  public VersionResponse version(VersionRequest request) {
    return call("Version", () -> runtime.version(request));
  }

  @Override
  public StatusResponse status(StatusRequest request) {
    return call("Status", () -> runtime.status(request));
  }

  @Override
  public RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request) {
    return call("RunPodSandbox", () -> runtime.runPodSandbox(request));
  }

  @Override
  public StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    return call("StopPodSandbox", () -> runtime.stopPodSandbox(request));
  }

  @Override
  public RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    return call("RemovePodSandbox", () -> runtime.removePodSandbox(request));
  }

  @Override
  public PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request) {
    return call("PodSandboxStatus", () -> runtime.podSandboxStatus(request));
  }

  @Override
  public ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request) {
    return call("ListPodSandbox", () -> runtime.listPodSandbox(request));
  }

  @Override
  public CreateContainerResponse createContainer(CreateContainerRequest request) {
    return call("CreateContainer", () -> runtime.createContainer(request));
  }

  @Override
  public StartContainerResponse startContainer(StartContainerRequest request) {
    return call("StartContainer", () -> runtime.startContainer(request));
  }

  @Override
  public StopContainerResponse stopContainer(StopContainerRequest request) {
    return call("StopContainer", () -> runtime.stopContainer(request));
  }

  @Override
  public RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    return call("RemoveContainer", () -> runtime.removeContainer(request));
  }

  @Override
  public ListContainersResponse listContainers(ListContainersRequest request) {
    return call("ListContainers", () -> runtime.listContainers(request));
  }

  @Override
  public ContainerStatusResponse containerStatus(ContainerStatusRequest request) {
    return call("ContainerStatus", () -> runtime.containerStatus(request));
  }

  @Override
  public ExecSyncResponse execSync(ExecSyncRequest request) {
    return call("ExecSync", () -> runtime.execSync(request));
  }

  /**
   * Streams the runtime's events into {@code events}. The upstream call is started in the caller's
   * context: when the kubelet's stream ends, that context is cancelled and grpc cancels this call.
   */
  @Override
  public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> events) {
    connection.reconnectIfFailed();
    runtimeAsync.getContainerEvents(request, new EventRelay(events));
  }

  @Override
  public UpdateContainerResourcesResponse updateContainerResources(UpdateContainerResourcesRequest request) {
    return call("UpdateContainerResources", () -> runtime.updateContainerResources(request));
  }

  @Override
  public UpdatePodSandboxResourcesResponse updatePodSandboxResources(UpdatePodSandboxResourcesRequest request) {
    return call("UpdatePodSandboxResources", () -> runtime.updatePodSandboxResources(request));
  }

  @Override
  public ReopenContainerLogResponse reopenContainerLog(ReopenContainerLogRequest request) {
    return call("ReopenContainerLog", () -> runtime.reopenContainerLog(request));
  }

  /** The runtime's own streaming URL: the kubelet then talks to the runtime's stream server directly. */
  @Override
  public ExecResponse exec(ExecRequest request) {
    return call("Exec", () -> runtime.exec(request));
  }

  @Override
  public AttachResponse attach(AttachRequest request) {
    return call("Attach", () -> runtime.attach(request));
  }

  @Override
  public PortForwardResponse portForward(PortForwardRequest request) {
    return call("PortForward", () -> runtime.portForward(request));
  }

  @Override
  public ContainerStatsResponse containerStats(ContainerStatsRequest request) {
    return call("ContainerStats", () -> runtime.containerStats(request));
  }

  @Override
  public ListContainerStatsResponse listContainerStats(ListContainerStatsRequest request) {
    return call("ListContainerStats", () -> runtime.listContainerStats(request));
  }

  @Override
  public PodSandboxStatsResponse podSandboxStats(PodSandboxStatsRequest request) {
    return call("PodSandboxStats", () -> runtime.podSandboxStats(request));
  }

  @Override
  public ListPodSandboxStatsResponse listPodSandboxStats(ListPodSandboxStatsRequest request) {
    return call("ListPodSandboxStats", () -> runtime.listPodSandboxStats(request));
  }

  @Override
  public UpdateRuntimeConfigResponse updateRuntimeConfig(UpdateRuntimeConfigRequest request) {
    return call("UpdateRuntimeConfig", () -> runtime.updateRuntimeConfig(request));
  }

  @Override
  public CheckpointContainerResponse checkpointContainer(CheckpointContainerRequest request) {
    return call("CheckpointContainer", () -> runtime.checkpointContainer(request));
  }

  @Override
  public ListMetricDescriptorsResponse listMetricDescriptors(ListMetricDescriptorsRequest request) {
    return call("ListMetricDescriptors", () -> runtime.listMetricDescriptors(request));
  }

  @Override
  public ListPodSandboxMetricsResponse listPodSandboxMetrics(ListPodSandboxMetricsRequest request) {
    return call("ListPodSandboxMetrics", () -> runtime.listPodSandboxMetrics(request));
  }

  @Override
  public RuntimeConfigResponse runtimeConfig(RuntimeConfigRequest request) {
    return call("RuntimeConfig", () -> runtime.runtimeConfig(request));
  }

  @Override
  public ListImagesResponse listImages(ListImagesRequest request) {
    return call("ListImages", () -> images.listImages(request));
  }

  @Override
  public ImageStatusResponse imageStatus(ImageStatusRequest request) {
    return call("ImageStatus", () -> images.imageStatus(request));
  }

  /**
   * One pull again, at once, when containerd lost the first to its snapshot collector
   * ({@link SnapshotRace}): the kubelet would retry only after its image back-off, 10 s or more
   * with the pod not starting. Within the caller's deadline, which both attempts share. Any other
   * failure, and a second loss, reach the caller unchanged.
   */
  @Override
  public PullImageResponse pullImage(PullImageRequest request) {
    try {
      return call("PullImage", () -> images.pullImage(request));
    } catch (StatusRuntimeException lost) {
      if (!SnapshotRace.lostParent(lost.getStatus())) {
        throw lost;
      }
      LOG.warn("{}: pull of {} lost a parent snapshot to the runtime's collector; pulling again: {}", name,
          request.getImage().getImage(), lost.getStatus().getDescription());
      return call("PullImage", () -> images.pullImage(request));
    }
  }

  @Override
  public RemoveImageResponse removeImage(RemoveImageRequest request) {
    return call("RemoveImage", () -> images.removeImage(request));
  }

  @Override
  public ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
    return call("ImageFsInfo", () -> images.imageFsInfo(request));
  }

  @Override
  public void close() {
    connection.close();
  }

  @Override
  public String toString() {
    return "cri backend " + name + " at " + endpoint;
  }

  private <R> R call(String rpc, Supplier<R> invocation) {
    connection.reconnectIfFailed();
    try {
      return invocation.get();
    } catch (StatusRuntimeException e) {
      throw translate(rpc, e);
    }
  }

  /** UNAVAILABLE names this backend, so the operator sees which runtime is gone; the rest passes through. */
  private RuntimeException translate(String rpc, StatusRuntimeException e) {
    if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
      return new CrigateException.Unavailable("%s: runtime at %s unavailable for %s: %s"
          .formatted(name, endpoint, rpc, e.getStatus().getDescription()), e);
    }
    return e;
  }
}
