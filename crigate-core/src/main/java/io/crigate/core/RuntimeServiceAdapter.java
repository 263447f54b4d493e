package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.grpc.MethodDescriptor;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.stream.Collectors;

/** The CRI RuntimeService: each RPC hands its request to the concern class that owns it. */
final class RuntimeServiceAdapter extends RuntimeServiceGrpc.RuntimeServiceImplBase {

  /**
   * Methods whose handlers never block: they answer from memory or forward through
   * {@link BackendCalls}, so the server runs them on its event loop with no thread hand-off. The
   * rest write SQLite, fan out or wait, and run on virtual threads. An ownership miss inside a
   * non-blocking handler moves itself off the loop ({@link Forwarder}).
   */
  static final Set<String> NON_BLOCKING = Set.of(
      RuntimeServiceGrpc.getVersionMethod(), RuntimeServiceGrpc.getStatusMethod(),
      RuntimeServiceGrpc.getPodSandboxStatusMethod(), RuntimeServiceGrpc.getPodSandboxStatsMethod(),
      RuntimeServiceGrpc.getPortForwardMethod(), RuntimeServiceGrpc.getContainerStatusMethod(),
      RuntimeServiceGrpc.getContainerStatsMethod(), RuntimeServiceGrpc.getStartContainerMethod(),
      RuntimeServiceGrpc.getStopContainerMethod(), RuntimeServiceGrpc.getReopenContainerLogMethod(),
      RuntimeServiceGrpc.getExecSyncMethod(), RuntimeServiceGrpc.getExecMethod(), RuntimeServiceGrpc.getAttachMethod(),
      RuntimeServiceGrpc.getListPodSandboxMethod(), RuntimeServiceGrpc.getStreamPodSandboxesMethod(),
      RuntimeServiceGrpc.getListContainersMethod(), RuntimeServiceGrpc.getStreamContainersMethod())
      .stream().map(MethodDescriptor::getFullMethodName).collect(Collectors.toUnmodifiableSet());

  private final SandboxLifecycle sandboxes;
  private final ContainerLifecycle containers;
  private final Listings listings;
  private final StreamingUrls streaming;
  private final RuntimeInfo runtime;
  private final ContainerEvents events;

  RuntimeServiceAdapter(SandboxLifecycle sandboxes, ContainerLifecycle containers, Listings listings,
      StreamingUrls streaming, RuntimeInfo runtime, ContainerEvents events) {
    this.sandboxes = sandboxes;
    this.containers = containers;
    this.listings = listings;
    this.streaming = streaming;
    this.runtime = runtime;
    this.events = events;
  }

  @Override
  public void version(VersionRequest request, StreamObserver<VersionResponse> observer) {
    Replies.unary(observer, runtime.version(request));
  }

  @Override
  public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
    Replies.async(observer, runtime.status(request));
  }

  @Override
  public void runtimeConfig(RuntimeConfigRequest request, StreamObserver<RuntimeConfigResponse> observer) {
    Replies.unary(observer, runtime.runtimeConfig(request));
  }

  @Override
  public void updateRuntimeConfig(UpdateRuntimeConfigRequest request, StreamObserver<UpdateRuntimeConfigResponse> observer) {
    Replies.unary(observer, runtime.updateRuntimeConfig(request));
  }

  @Override
  public void runPodSandbox(RunPodSandboxRequest request, StreamObserver<RunPodSandboxResponse> observer) {
    Replies.unary(observer, sandboxes.runPodSandbox(request));
  }

  @Override
  public void stopPodSandbox(StopPodSandboxRequest request, StreamObserver<StopPodSandboxResponse> observer) {
    Replies.unary(observer, sandboxes.stopPodSandbox(request));
  }

  @Override
  public void removePodSandbox(RemovePodSandboxRequest request, StreamObserver<RemovePodSandboxResponse> observer) {
    Replies.unary(observer, sandboxes.removePodSandbox(request));
  }

  @Override
  public void podSandboxStatus(PodSandboxStatusRequest request, StreamObserver<PodSandboxStatusResponse> observer) {
    Replies.async(observer, sandboxes.podSandboxStatus(request));
  }

  @Override
  public void podSandboxStats(PodSandboxStatsRequest request, StreamObserver<PodSandboxStatsResponse> observer) {
    Replies.async(observer, sandboxes.podSandboxStats(request));
  }

  @Override
  public void updatePodSandboxResources(UpdatePodSandboxResourcesRequest request,
      StreamObserver<UpdatePodSandboxResourcesResponse> observer) {
    Replies.unary(observer, sandboxes.updatePodSandboxResources(request));
  }

  @Override
  public void portForward(PortForwardRequest request, StreamObserver<PortForwardResponse> observer) {
    Replies.async(observer, streaming.portForward(request));
  }

  @Override
  public void createContainer(CreateContainerRequest request, StreamObserver<CreateContainerResponse> observer) {
    Replies.unary(observer, containers.createContainer(request));
  }

  @Override
  public void startContainer(StartContainerRequest request, StreamObserver<StartContainerResponse> observer) {
    Replies.async(observer, containers.startContainer(request));
  }

  @Override
  public void stopContainer(StopContainerRequest request, StreamObserver<StopContainerResponse> observer) {
    Replies.async(observer, containers.stopContainer(request));
  }

  @Override
  public void removeContainer(RemoveContainerRequest request, StreamObserver<RemoveContainerResponse> observer) {
    Replies.unary(observer, containers.removeContainer(request));
  }

  @Override
  public void containerStatus(ContainerStatusRequest request, StreamObserver<ContainerStatusResponse> observer) {
    Replies.async(observer, containers.containerStatus(request));
  }

  @Override
  public void containerStats(ContainerStatsRequest request, StreamObserver<ContainerStatsResponse> observer) {
    Replies.async(observer, containers.containerStats(request));
  }

  @Override
  public void updateContainerResources(UpdateContainerResourcesRequest request,
      StreamObserver<UpdateContainerResourcesResponse> observer) {
    Replies.unary(observer, containers.updateContainerResources(request));
  }

  @Override
  public void reopenContainerLog(ReopenContainerLogRequest request, StreamObserver<ReopenContainerLogResponse> observer) {
    Replies.async(observer, containers.reopenContainerLog(request));
  }

  @Override
  public void execSync(ExecSyncRequest request, StreamObserver<ExecSyncResponse> observer) {
    Replies.async(observer, containers.execSync(request));
  }

  @Override
  public void checkpointContainer(CheckpointContainerRequest request, StreamObserver<CheckpointContainerResponse> observer) {
    Replies.unary(observer, containers.checkpointContainer(request));
  }

  @Override
  public void exec(ExecRequest request, StreamObserver<ExecResponse> observer) {
    Replies.async(observer, streaming.exec(request));
  }

  @Override
  public void attach(AttachRequest request, StreamObserver<AttachResponse> observer) {
    Replies.async(observer, streaming.attach(request));
  }

  @Override
  public void listPodSandbox(ListPodSandboxRequest request, StreamObserver<ListPodSandboxResponse> observer) {
    Replies.async(observer, listings.podSandboxes(request.getFilter())
        .thenApply(items -> ListPodSandboxResponse.newBuilder().addAllItems(items).build()));
  }

  @Override
  public void streamPodSandboxes(StreamPodSandboxesRequest request, StreamObserver<StreamPodSandboxesResponse> observer) {
    Replies.chunkedAsync(observer, listings.podSandboxes(request.getFilter()),
        chunk -> StreamPodSandboxesResponse.newBuilder().addAllPodSandboxes(chunk).build());
  }

  @Override
  public void listContainers(ListContainersRequest request, StreamObserver<ListContainersResponse> observer) {
    Replies.async(observer, listings.containers(request.getFilter())
        .thenApply(items -> ListContainersResponse.newBuilder().addAllContainers(items).build()));
  }

  @Override
  public void streamContainers(StreamContainersRequest request, StreamObserver<StreamContainersResponse> observer) {
    Replies.chunkedAsync(observer, listings.containers(request.getFilter()),
        chunk -> StreamContainersResponse.newBuilder().addAllContainers(chunk).build());
  }

  @Override
  public void listContainerStats(ListContainerStatsRequest request, StreamObserver<ListContainerStatsResponse> observer) {
    Replies.unary(observer, ListContainerStatsResponse.newBuilder().addAllStats(listings.containerStats(request.getFilter())).build());
  }

  @Override
  public void streamContainerStats(StreamContainerStatsRequest request, StreamObserver<StreamContainerStatsResponse> observer) {
    Replies.chunked(observer, listings.containerStats(request.getFilter()),
        chunk -> StreamContainerStatsResponse.newBuilder().addAllContainerStats(chunk).build());
  }

  @Override
  public void listPodSandboxStats(ListPodSandboxStatsRequest request, StreamObserver<ListPodSandboxStatsResponse> observer) {
    Replies.unary(observer, ListPodSandboxStatsResponse.newBuilder().addAllStats(listings.podSandboxStats(request.getFilter())).build());
  }

  @Override
  public void streamPodSandboxStats(StreamPodSandboxStatsRequest request, StreamObserver<StreamPodSandboxStatsResponse> observer) {
    Replies.chunked(observer, listings.podSandboxStats(request.getFilter()),
        chunk -> StreamPodSandboxStatsResponse.newBuilder().addAllPodSandboxStats(chunk).build());
  }

  @Override
  public void listPodSandboxMetrics(ListPodSandboxMetricsRequest request, StreamObserver<ListPodSandboxMetricsResponse> observer) {
    Replies.unary(observer, ListPodSandboxMetricsResponse.newBuilder().addAllPodMetrics(listings.podSandboxMetrics()).build());
  }

  @Override
  public void streamPodSandboxMetrics(StreamPodSandboxMetricsRequest request,
      StreamObserver<StreamPodSandboxMetricsResponse> observer) {
    Replies.chunked(observer, listings.podSandboxMetrics(),
        chunk -> StreamPodSandboxMetricsResponse.newBuilder().addAllPodSandboxMetrics(chunk).build());
  }

  @Override
  public void listMetricDescriptors(ListMetricDescriptorsRequest request, StreamObserver<ListMetricDescriptorsResponse> observer) {
    Replies.unary(observer, ListMetricDescriptorsResponse.newBuilder().addAllDescriptors(listings.metricDescriptors()).build());
  }

  @Override
  public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> observer) {
    events.getContainerEvents(request, observer);
  }
}
