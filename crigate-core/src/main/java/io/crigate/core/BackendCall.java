package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.grpc.MethodDescriptor;
import java.util.function.BiFunction;

/**
 * A CRI call core forwards without looking inside the answer: its wire method, for backends that
 * forward asynchronously, and the blocking method, for backends that run it on their own executor.
 */
record BackendCall<Q, R>(MethodDescriptor<Q, R> method, BiFunction<Backend, Q, R> blocking) {

  static final BackendCall<StatusRequest, StatusResponse> STATUS =
      new BackendCall<>(RuntimeServiceGrpc.getStatusMethod(), Backend::status);
  static final BackendCall<PodSandboxStatusRequest, PodSandboxStatusResponse> POD_SANDBOX_STATUS =
      new BackendCall<>(RuntimeServiceGrpc.getPodSandboxStatusMethod(), Backend::podSandboxStatus);
  static final BackendCall<PodSandboxStatsRequest, PodSandboxStatsResponse> POD_SANDBOX_STATS =
      new BackendCall<>(RuntimeServiceGrpc.getPodSandboxStatsMethod(), Backend::podSandboxStats);
  static final BackendCall<PortForwardRequest, PortForwardResponse> PORT_FORWARD =
      new BackendCall<>(RuntimeServiceGrpc.getPortForwardMethod(), Backend::portForward);
  static final BackendCall<ContainerStatusRequest, ContainerStatusResponse> CONTAINER_STATUS =
      new BackendCall<>(RuntimeServiceGrpc.getContainerStatusMethod(), Backend::containerStatus);
  static final BackendCall<ContainerStatsRequest, ContainerStatsResponse> CONTAINER_STATS =
      new BackendCall<>(RuntimeServiceGrpc.getContainerStatsMethod(), Backend::containerStats);
  static final BackendCall<StartContainerRequest, StartContainerResponse> START_CONTAINER =
      new BackendCall<>(RuntimeServiceGrpc.getStartContainerMethod(), Backend::startContainer);
  static final BackendCall<StopContainerRequest, StopContainerResponse> STOP_CONTAINER =
      new BackendCall<>(RuntimeServiceGrpc.getStopContainerMethod(), Backend::stopContainer);
  static final BackendCall<ReopenContainerLogRequest, ReopenContainerLogResponse> REOPEN_CONTAINER_LOG =
      new BackendCall<>(RuntimeServiceGrpc.getReopenContainerLogMethod(), Backend::reopenContainerLog);
  static final BackendCall<ExecSyncRequest, ExecSyncResponse> EXEC_SYNC =
      new BackendCall<>(RuntimeServiceGrpc.getExecSyncMethod(), Backend::execSync);
  static final BackendCall<ExecRequest, ExecResponse> EXEC =
      new BackendCall<>(RuntimeServiceGrpc.getExecMethod(), Backend::exec);
  static final BackendCall<AttachRequest, AttachResponse> ATTACH =
      new BackendCall<>(RuntimeServiceGrpc.getAttachMethod(), Backend::attach);
  static final BackendCall<ListPodSandboxRequest, ListPodSandboxResponse> LIST_POD_SANDBOX =
      new BackendCall<>(RuntimeServiceGrpc.getListPodSandboxMethod(), Backend::listPodSandbox);
  static final BackendCall<ListContainersRequest, ListContainersResponse> LIST_CONTAINERS =
      new BackendCall<>(RuntimeServiceGrpc.getListContainersMethod(), Backend::listContainers);

  String rpc() {
    return method.getBareMethodName();
  }
}
