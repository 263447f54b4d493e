package io.crigate.spi;

import io.crigate.api.cri.v1.*;
import io.grpc.stub.StreamObserver;

/**
 * The CRI RuntimeService as one backend sees it. Methods are blocking: core calls them on virtual
 * threads or the backend's bounded executor, inside the caller's gRPC context, so a remote backend
 * inherits the kubelet's deadline. Backends that can forward without blocking also offer
 * {@link Backend#async()}, which core prefers for calls it only routes.
 *
 * <p>Requests arrive with {@code runtime_handler} already rewritten to the backend's own handler
 * name. Backends may ignore list filters; core re-applies them after merging.
 *
 * <p>Operations that only some runtimes offer have defaults that raise {@link
 * CrigateException.Unimplemented}; core treats that as "nothing to contribute" in fan-outs.
 */
public interface RuntimeBackend {

  VersionResponse version(VersionRequest request);

  StatusResponse status(StatusRequest request);

  RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request);

  StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request);

  RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request);

  PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request);

  ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request);

  CreateContainerResponse createContainer(CreateContainerRequest request);

  StartContainerResponse startContainer(StartContainerRequest request);

  StopContainerResponse stopContainer(StopContainerRequest request);

  RemoveContainerResponse removeContainer(RemoveContainerRequest request);

  ListContainersResponse listContainers(ListContainersRequest request);

  ContainerStatusResponse containerStatus(ContainerStatusRequest request);

  ExecSyncResponse execSync(ExecSyncRequest request);

  /**
   * Streams container lifecycle events until the observer's call is cancelled or the backend
   * ends the stream. Backends without an event source complete immediately.
   */
  default void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> events) {
    events.onCompleted();
  }

  default UpdateContainerResourcesResponse updateContainerResources(UpdateContainerResourcesRequest request) {
    throw unsupported("UpdateContainerResources");
  }

  default UpdatePodSandboxResourcesResponse updatePodSandboxResources(UpdatePodSandboxResourcesRequest request) {
    throw unsupported("UpdatePodSandboxResources");
  }

  default ReopenContainerLogResponse reopenContainerLog(ReopenContainerLogRequest request) {
    throw unsupported("ReopenContainerLog");
  }

  default ExecResponse exec(ExecRequest request) {
    throw unsupported("Exec");
  }

  default AttachResponse attach(AttachRequest request) {
    throw unsupported("Attach");
  }

  default PortForwardResponse portForward(PortForwardRequest request) {
    throw unsupported("PortForward");
  }

  default ContainerStatsResponse containerStats(ContainerStatsRequest request) {
    throw unsupported("ContainerStats");
  }

  default ListContainerStatsResponse listContainerStats(ListContainerStatsRequest request) {
    throw unsupported("ListContainerStats");
  }

  default PodSandboxStatsResponse podSandboxStats(PodSandboxStatsRequest request) {
    throw unsupported("PodSandboxStats");
  }

  default ListPodSandboxStatsResponse listPodSandboxStats(ListPodSandboxStatsRequest request) {
    throw unsupported("ListPodSandboxStats");
  }

  default UpdateRuntimeConfigResponse updateRuntimeConfig(UpdateRuntimeConfigRequest request) {
    return UpdateRuntimeConfigResponse.getDefaultInstance();
  }

  default CheckpointContainerResponse checkpointContainer(CheckpointContainerRequest request) {
    throw unsupported("CheckpointContainer");
  }

  default ListMetricDescriptorsResponse listMetricDescriptors(ListMetricDescriptorsRequest request) {
    throw unsupported("ListMetricDescriptors");
  }

  default ListPodSandboxMetricsResponse listPodSandboxMetrics(ListPodSandboxMetricsRequest request) {
    throw unsupported("ListPodSandboxMetrics");
  }

  default RuntimeConfigResponse runtimeConfig(RuntimeConfigRequest request) {
    throw unsupported("RuntimeConfig");
  }

  private CrigateException.Unimplemented unsupported(String method) {
    return new CrigateException.Unimplemented(method + " is not supported by backend type "
        + getClass().getSimpleName());
  }
}
