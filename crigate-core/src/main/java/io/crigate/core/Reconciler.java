package io.crigate.core;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.SandboxRecord;
import io.grpc.Context;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up reconciliation. Each backend that answers is the truth about itself: its sandboxes and
 * containers are adopted and its records it no longer reports are forgotten, in one transaction per
 * backend. A backend that does not answer keeps every record, since forgetting them would orphan
 * its pods once it is back.
 */
final class Reconciler {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  /** Bounds how long start-up waits for one slow backend; a late backend keeps its records. */
  static final long LIST_TIMEOUT_SECONDS = 30;

  private record Inventory(List<PodSandbox> sandboxes, List<Container> containers) {}

  private final BackendRoutes routes;
  private final GatewayState state;
  private final FanOut fanOut;
  private final Adoption adoption;

  Reconciler(BackendRoutes routes, GatewayState state, FanOut fanOut) {
    this.routes = routes;
    this.state = state;
    this.fanOut = fanOut;
    this.adoption = new Adoption(routes);
  }

  void reconcile() {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().factory());
    try (Context.CancellableContext bounded = Context.current().withDeadlineAfter(LIST_TIMEOUT_SECONDS, TimeUnit.SECONDS, timer)) {
      List<FanOut.Reply<Inventory>> replies = bounded.call(() -> fanOut.ask(routes.all(), backend -> new Inventory(
          backend.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList(),
          backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())));
      replies.forEach(this::apply);
    } catch (Exception e) {
      throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
    } finally {
      timer.shutdownNow();
    }
  }

  private void apply(FanOut.Reply<Inventory> reply) {
    String backend = reply.backend().name();
    int recorded = state.sandboxes().ownedBy(backend).size();
    if (!reply.ok()) {
      log.warn("reconcile: backend {} did not answer, keeping its {} sandbox record(s): {}", backend, recorded,
          reply.failure().toString());
      return;
    }
    List<SandboxRecord> sandboxes = reply.value().sandboxes().stream()
        .map(sandbox -> adoption.sandbox(backend, sandbox, state.sandboxes().find(sandbox.getId())))
        .toList();
    List<ContainerRecord> containers = reply.value().containers().stream()
        .map(container -> adoption.container(backend, container, state.containers().find(container.getId())))
        .toList();
    state.replaceBackend(backend, sandboxes, containers);
    log.info("reconcile: backend {} has {} sandbox(es) and {} container(s); {} sandbox record(s) before",
        backend, sandboxes.size(), containers.size(), recorded);
  }
}
