package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * A CRI call core forwards without looking inside the answer: its wire method, for backends that
 * forward asynchronously, the blocking method, for backends that run it on their own executor, and
 * how long a healthy backend may take for it.
 */
record BackendCall<Q, R>(MethodDescriptor<Q, R> method, BiFunction<Backend, Q, R> blocking, Allowance<Q> allowance) {

  /**
   * The time crigate gives one request before it calls the backend frozen: the backend's call
   * timeout, plus whatever time the request itself grants the runtime (a stop's grace period, an
   * exec's own timeout). Empty: no limit of crigate's own, only the caller's deadline.
   */
  @FunctionalInterface
  interface Allowance<Q> {
    Optional<Duration> of(Q request, Duration callTimeout);

    static <Q> Allowance<Q> callTimeout() {
      return (request, callTimeout) -> Optional.of(callTimeout);
    }
  }

  BackendCall(MethodDescriptor<Q, R> method, BiFunction<Backend, Q, R> blocking) {
    this(method, blocking, Allowance.callTimeout());
  }

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
      new BackendCall<>(RuntimeServiceGrpc.getStopContainerMethod(), Backend::stopContainer,
          (request, callTimeout) -> Optional.of(callTimeout.plusSeconds(Math.max(0, request.getTimeout()))));
  static final BackendCall<ReopenContainerLogRequest, ReopenContainerLogResponse> REOPEN_CONTAINER_LOG =
      new BackendCall<>(RuntimeServiceGrpc.getReopenContainerLogMethod(), Backend::reopenContainerLog);
  static final BackendCall<ExecSyncRequest, ExecSyncResponse> EXEC_SYNC =
      new BackendCall<>(RuntimeServiceGrpc.getExecSyncMethod(), Backend::execSync,
          // CRI: a timeout of 0 lets the command run as long as it likes.
          (request, callTimeout) -> request.getTimeout() <= 0 ? Optional.empty() : Optional.of(callTimeout.plusSeconds(request.getTimeout())));
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
