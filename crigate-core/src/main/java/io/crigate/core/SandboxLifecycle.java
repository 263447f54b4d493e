package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.SandboxRecord;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.grpc.Status;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pod sandbox calls. RunPodSandbox picks the backend by handler and records ownership durably
 * before answering; every later call goes to the recorded owner.
 */
final class SandboxLifecycle {

  private static final Logger log = LoggerFactory.getLogger(SandboxLifecycle.class);

  private final BackendRoutes routes;
  private final Owners owners;
  private final Forwarder forwarder;
  private final GatewayState state;
  private final Clock clock;
  private final ProxyAdjustments adjustments;

  SandboxLifecycle(BackendRoutes routes, Owners owners, Forwarder forwarder, GatewayState state, Clock clock,
      ProxyAdjustments adjustments) {
    this.routes = routes;
    this.owners = owners;
    this.forwarder = forwarder;
    this.state = state;
    this.clock = clock;
    this.adjustments = adjustments;
  }

  RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request) {
    Require.present(request.hasConfig(), "config");
    Require.present(request.getConfig().hasMetadata(), "config.metadata");
    PodSandboxMetadata metadata = request.getConfig().getMetadata();
    Require.id("config.metadata.name", metadata.getName());
    BackendRoutes.Route route = routes.forHandler(request.getRuntimeHandler());
    owners.requireHealthy(route.backend());
    RunPodSandboxRequest forwarded = adjustments.runPodSandbox(request).toBuilder()
        .setRuntimeHandler(route.binding().backendHandler()).build();
    RunPodSandboxResponse response = route.backend().runPodSandbox(forwarded);
    String id = response.getPodSandboxId();
    if (id.isEmpty()) {
      throw new CrigateException.FailedPrecondition("backend %s returned no pod_sandbox_id".formatted(route.backend().name()));
    }
    SandboxRecord record = new SandboxRecord(id, route.backend().name(), HandlerBinding.normalize(request.getRuntimeHandler()),
        metadata.getNamespace(), metadata.getName(), metadata.getUid(), clock.instant());
    try {
      state.sandboxes().add(record);
    } catch (RuntimeException e) {
      // Without a record the kubelet would retry and leave this sandbox orphaned on the backend.
      discard(route.backend(), id, e);
      throw e;
    }
    adjustments.sandboxCreated(id, forwarded);
    return response;
  }

  /** Idempotent, as CRI requires: a sandbox that no backend has is already stopped. */
  StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    String id = Require.id("pod_sandbox_id", request.getPodSandboxId());
    Optional<Backend> owner = owners.ofSandboxIfExists(id);
    if (owner.isEmpty()) {
      return StopPodSandboxResponse.getDefaultInstance();
    }
    StopPodSandboxResponse response;
    try {
      response = owner.get().stopPodSandbox(request);
    } catch (RuntimeException e) {
      if (GrpcErrors.codeOf(e) != Status.Code.NOT_FOUND) {
        throw e;
      }
      response = StopPodSandboxResponse.getDefaultInstance();
    }
    adjustments.sandboxStopped(id);
    return response;
  }

  /** Idempotent, as CRI requires; the record (and its containers') goes only once the backend confirms. */
  RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    String id = Require.id("pod_sandbox_id", request.getPodSandboxId());
    Optional<Backend> owner = owners.ofSandboxIfExists(id);
    if (owner.isEmpty()) {
      return RemovePodSandboxResponse.getDefaultInstance();
    }
    adjustments.sandboxRemoving(id);
    RemovePodSandboxResponse response;
    try {
      response = owner.get().removePodSandbox(request);
    } catch (RuntimeException e) {
      if (GrpcErrors.codeOf(e) != Status.Code.NOT_FOUND) {
        throw e;
      }
      response = RemovePodSandboxResponse.getDefaultInstance();
    }
    state.sandboxes().remove(id);
    adjustments.sandboxRemoved(id);
    return response;
  }

  CompletionStage<PodSandboxStatusResponse> podSandboxStatus(PodSandboxStatusRequest request) {
    return forwarder.toSandbox(Require.id("pod_sandbox_id", request.getPodSandboxId()), BackendCall.POD_SANDBOX_STATUS, request);
  }

  CompletionStage<PodSandboxStatsResponse> podSandboxStats(PodSandboxStatsRequest request) {
    return forwarder.toSandbox(Require.id("pod_sandbox_id", request.getPodSandboxId()), BackendCall.POD_SANDBOX_STATS, request);
  }

  /** The plugins hear of a pod resize before the owner applies it, and again once it did. */
  UpdatePodSandboxResourcesResponse updatePodSandboxResources(UpdatePodSandboxResourcesRequest request) {
    Backend owner = owners.ofSandbox(Require.id("pod_sandbox_id", request.getPodSandboxId()));
    adjustments.podSandboxResourcesUpdating(request);
    UpdatePodSandboxResourcesResponse response = owner.updatePodSandboxResources(request);
    adjustments.podSandboxResourcesUpdated(request);
    return response;
  }

  private static void discard(Backend backend, String id, RuntimeException cause) {
    log.error("could not record sandbox {} on backend {}; removing it there", id, backend.name(), cause);
    try {
      backend.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(id).build());
      backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(id).build());
    } catch (RuntimeException e) {
      // Reconcile at the next start adopts it, so it is not lost for good.
      log.error("could not remove unrecorded sandbox {} from backend {}", id, backend.name(), e);
    }
  }
}
