package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.grpc.Status;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Container calls: CreateContainer goes to the sandbox's owner and is recorded; the rest follow the record. */
final class ContainerLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ContainerLifecycle.class);

  private final Owners owners;
  private final Forwarder forwarder;
  private final GatewayState state;
  private final Clock clock;
  private final ProxyAdjustments adjustments;

  ContainerLifecycle(Owners owners, Forwarder forwarder, GatewayState state, Clock clock, ProxyAdjustments adjustments) {
    this.owners = owners;
    this.forwarder = forwarder;
    this.state = state;
    this.clock = clock;
    this.adjustments = adjustments;
  }

  CreateContainerResponse createContainer(CreateContainerRequest request) {
    String sandboxId = Require.id("pod_sandbox_id", request.getPodSandboxId());
    Require.present(request.hasConfig(), "config");
    Require.present(request.getConfig().hasMetadata(), "config.metadata");
    Require.id("config.metadata.name", request.getConfig().getMetadata().getName());
    Require.id("config.image.image", request.getConfig().getImage().getImage());
    Backend owner = owners.ofSandbox(sandboxId);
    ProxyAdjustments.Pending pending = adjustments.createContainer(request);
    CreateContainerResponse response;
    String id;
    try {
      response = owner.createContainer(pending.request());
      id = response.getContainerId();
      if (id.isEmpty()) {
        throw new CrigateException.FailedPrecondition("backend %s returned no container_id".formatted(owner.name()));
      }
    } catch (RuntimeException e) {
      adjustments.containerFailed(pending);
      throw e;
    }
    try {
      state.containers().add(new ContainerRecord(id, sandboxId, owner.name(), request.getConfig().getMetadata().getName(),
          clock.instant()));
    } catch (RuntimeException e) {
      discard(owner, id, e);
      adjustments.containerFailed(pending);
      throw e;
    }
    adjustments.containerCreated(pending, id);
    return response;
  }

  /**
   * Without adjustment plugins for the container this is a plain forward on the event loop; with
   * them, the plugins (which may update other containers) and the call run off the loop.
   */
  CompletionStage<StartContainerResponse> startContainer(StartContainerRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    if (!adjustments.follows(id)) {
      return forwarder.toContainer(id, BackendCall.START_CONTAINER, request);
    }
    return forwarder.offLoop(() -> {
      adjustments.containerStarting(id);
      StartContainerResponse response = forwarder.toContainer(id, BackendCall.START_CONTAINER, request)
          .toCompletableFuture().join();
      adjustments.containerStarted(id);
      return response;
    });
  }

  CompletionStage<StopContainerResponse> stopContainer(StopContainerRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    if (!adjustments.follows(id)) {
      return forwarder.toContainer(id, BackendCall.STOP_CONTAINER, request);
    }
    return forwarder.offLoop(() -> {
      StopContainerResponse response = forwarder.toContainer(id, BackendCall.STOP_CONTAINER, request)
          .toCompletableFuture().join();
      adjustments.containerStopped(id);
      return response;
    });
  }

  /** Idempotent, as CRI requires; the record goes only once the backend confirms. */
  RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    Optional<Backend> owner = owners.ofContainerIfExists(id);
    if (owner.isEmpty()) {
      return RemoveContainerResponse.getDefaultInstance();
    }
    adjustments.containerRemoving(id);
    RemoveContainerResponse response;
    try {
      response = owner.get().removeContainer(request);
    } catch (RuntimeException e) {
      if (GrpcErrors.codeOf(e) != Status.Code.NOT_FOUND) {
        throw e;
      }
      response = RemoveContainerResponse.getDefaultInstance();
    }
    state.containers().remove(id);
    adjustments.containerRemoved(id);
    return response;
  }

  CompletionStage<ContainerStatusResponse> containerStatus(ContainerStatusRequest request) {
    return forwarder.toContainer(Require.id("container_id", request.getContainerId()), BackendCall.CONTAINER_STATUS, request);
  }

  CompletionStage<ContainerStatsResponse> containerStats(ContainerStatsRequest request) {
    return forwarder.toContainer(Require.id("container_id", request.getContainerId()), BackendCall.CONTAINER_STATS, request);
  }

  UpdateContainerResourcesResponse updateContainerResources(UpdateContainerResourcesRequest request) {
    Backend owner = owner(request.getContainerId());
    UpdateContainerResourcesRequest adjusted = adjustments.updateContainerResources(request);
    UpdateContainerResourcesResponse response = owner.updateContainerResources(adjusted);
    adjustments.containerUpdated(adjusted);
    return response;
  }

  CompletionStage<ReopenContainerLogResponse> reopenContainerLog(ReopenContainerLogRequest request) {
    return forwarder.toContainer(Require.id("container_id", request.getContainerId()), BackendCall.REOPEN_CONTAINER_LOG, request);
  }

  CompletionStage<ExecSyncResponse> execSync(ExecSyncRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    Require.present(request.getCmdCount() > 0, "cmd");
    return forwarder.toContainer(id, BackendCall.EXEC_SYNC, request);
  }

  CheckpointContainerResponse checkpointContainer(CheckpointContainerRequest request) {
    return owner(request.getContainerId()).checkpointContainer(request);
  }

  private Backend owner(String containerId) {
    return owners.ofContainer(Require.id("container_id", containerId));
  }

  private static void discard(Backend backend, String id, RuntimeException cause) {
    log.error("could not record container {} on backend {}; removing it there", id, backend.name(), cause);
    try {
      backend.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(id).build());
    } catch (RuntimeException e) {
      log.error("could not remove unrecorded container {} from backend {}", id, backend.name(), e);
    }
  }
}
