package io.crigate.core;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ContainerFilter;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.PodSandboxFilter;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.SandboxRecord;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.grpc.Status;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the backend that owns a sandbox or container. The hot path is one in-memory lookup; on a
 * miss (an object created while crigate was down, or before a crash wrote its record) every backend
 * is asked at once and the one that knows the id is recorded as its owner.
 */
final class Owners {

  private static final Logger log = LoggerFactory.getLogger(Owners.class);

  private final BackendRoutes routes;
  private final GatewayState state;
  private final FanOut fanOut;
  private final BackendHealth health;
  private final Adoption adoption;

  Owners(BackendRoutes routes, GatewayState state, FanOut fanOut, BackendHealth health) {
    this.routes = routes;
    this.state = state;
    this.fanOut = fanOut;
    this.health = health;
    this.adoption = new Adoption(routes);
  }

  /** @throws CrigateException.Unavailable naming {@code backend} while its health probe fails */
  void requireHealthy(Backend backend) {
    health.require(backend.name());
  }

  /** The sandbox's owner if it is on record: a hash lookup that never blocks. */
  Optional<Backend> recordedSandboxOwner(String id) {
    return state.sandboxes().find(id).map(record -> routes.backend(record.backend()));
  }

  /** The container's owner if it is on record: a hash lookup that never blocks. */
  Optional<Backend> recordedContainerOwner(String id) {
    return state.containers().find(id).map(record -> routes.backend(record.backend()));
  }

  /**
   * @throws CrigateException.NotFound when every backend answered and none has the sandbox
   * @throws CrigateException.Unavailable when none has it but some backend could not be asked, or
   *     when its owner is unhealthy
   */
  Backend ofSandbox(String id) {
    Optional<SandboxRecord> recorded = state.sandboxes().find(id);
    if (recorded.isPresent()) {
      health.require(recorded.get().backend());
      return routes.backend(recorded.get().backend());
    }
    ListPodSandboxRequest probe = ListPodSandboxRequest.newBuilder().setFilter(PodSandboxFilter.newBuilder().setId(id)).build();
    Found<PodSandbox> found = probe("sandbox " + id,
        backend -> backend.listPodSandbox(probe).getItemsList().stream().filter(s -> s.getId().equals(id)).findFirst());
    SandboxRecord sandbox = adoption.sandbox(found.backend().name(), found.item(), Optional.empty());
    addQuietly(() -> state.sandboxes().add(sandbox));
    log.info("adopted sandbox {} ({}/{}) found on backend {}", id, sandbox.podNamespace(), sandbox.podName(), sandbox.backend());
    return found.backend();
  }

  /** Like {@link #ofSandbox}, for a container. */
  Backend ofContainer(String id) {
    Optional<ContainerRecord> recorded = state.containers().find(id);
    if (recorded.isPresent()) {
      health.require(recorded.get().backend());
      return routes.backend(recorded.get().backend());
    }
    ListContainersRequest probe = ListContainersRequest.newBuilder().setFilter(ContainerFilter.newBuilder().setId(id)).build();
    Found<Container> found = probe("container " + id,
        backend -> backend.listContainers(probe).getContainersList().stream().filter(c -> c.getId().equals(id)).findFirst());
    ContainerRecord container = adoption.container(found.backend().name(), found.item(), Optional.empty());
    addQuietly(() -> state.containers().add(container));
    log.info("adopted container {} in sandbox {} found on backend {}", id, container.sandboxId(), container.backend());
    return found.backend();
  }

  /** The sandbox's owner, or empty when every backend confirms it does not exist (idempotent Stop/Remove). */
  Optional<Backend> ofSandboxIfExists(String id) {
    try {
      return Optional.of(ofSandbox(id));
    } catch (CrigateException.NotFound e) {
      return Optional.empty();
    }
  }

  /** Like {@link #ofSandboxIfExists}, for a container. */
  Optional<Backend> ofContainerIfExists(String id) {
    try {
      return Optional.of(ofContainer(id));
    } catch (CrigateException.NotFound e) {
      return Optional.empty();
    }
  }

  private record Found<T>(Backend backend, T item) {}

  private <T> Found<T> probe(String what, Function<Backend, Optional<T>> lookup) {
    List<FanOut.Reply<Optional<T>>> replies = fanOut.ask(routes.all(), lookup);
    for (FanOut.Reply<Optional<T>> reply : replies) {
      if (reply.ok() && reply.value().isPresent()) {
        return new Found<>(reply.backend(), reply.value().get());
      }
    }
    List<FanOut.Reply<Optional<T>>> unanswered = replies.stream()
        .filter(reply -> !reply.ok() && GrpcErrors.codeOf(reply.failure()) != Status.Code.NOT_FOUND)
        .toList();
    if (!unanswered.isEmpty()) {
      // The object may live on a backend we cannot see; NotFound would make the kubelet recreate it.
      throw new CrigateException.Unavailable("%s is not known to the reachable backends and %s could not be asked: %s"
          .formatted(what, unanswered.stream().map(reply -> reply.backend().name()).collect(Collectors.joining(", ")),
              unanswered.getFirst().failure().getMessage()), unanswered.getFirst().failure());
    }
    throw new CrigateException.NotFound(what);
  }

  /** A concurrent probe may have recorded the same id first; that is the same fact, not a conflict. */
  private static void addQuietly(Runnable add) {
    try {
      add.run();
    } catch (CrigateException.AlreadyExists e) {
      log.debug("already recorded: {}", e.getMessage());
    }
  }
}
