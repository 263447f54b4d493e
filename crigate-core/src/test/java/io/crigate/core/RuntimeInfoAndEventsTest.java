package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.crigate.core.config.BackendTimeouts;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeInfoAndEventsTest {

  @TempDir Path stateDir;
  RouterHarness crigate;

  @BeforeEach
  void start() {
    crigate = RouterHarness.start(stateDir);
  }

  @AfterEach
  void stop() {
    crigate.close();
  }

  @Test
  void versionIsCrigatesOwnAndNeedsNoBackend() {
    crigate.alpha.setAvailable(false);
    VersionResponse version = crigate.runtime.version(VersionRequest.getDefaultInstance());
    assertThat(version.getRuntimeName()).isEqualTo("crigate");
    assertThat(version.getRuntimeApiVersion()).isEqualTo("v1");
    assertThat(version.getRuntimeVersion()).isNotBlank().doesNotContain("${");
    assertThat(crigate.alpha.calls()).isZero();
  }

  @Test
  void statusListsEveryBoundHandlerWithTheOwningBackendsFeatures() {
    crigate.beta.reportHandlers(List.of(RuntimeHandler.newBuilder().setName("runsc")
        .setFeatures(RuntimeHandlerFeatures.newBuilder().setUserNamespaces(true)).build()));

    StatusResponse status = crigate.runtime.status(StatusRequest.getDefaultInstance());

    // The default handler is "" as the kubelet names it; "fast" takes beta's features for "runsc".
    assertThat(status.getRuntimeHandlersList()).containsExactly(
        RuntimeHandler.newBuilder().setName("").build(),
        RuntimeHandler.newBuilder().setName("fast")
            .setFeatures(RuntimeHandlerFeatures.newBuilder().setUserNamespaces(true)).build());
    assertThat(status.getInfoMap()).containsEntry("backend", "alpha");
  }

  @Test
  void statusReportsADownBackendAsItsOwnConditionAndKeepsTheNodeReady() {
    crigate.beta.setAvailable(false);

    List<RuntimeCondition> conditions = crigate.runtime.status(StatusRequest.getDefaultInstance()).getStatus().getConditionsList();

    assertThat(conditions).filteredOn(c -> c.getType().equals("RuntimeReady")).singleElement()
        .extracting(RuntimeCondition::getStatus).isEqualTo(true);
    assertThat(conditions).filteredOn(c -> c.getType().equals(RuntimeInfo.BACKEND_CONDITION_PREFIX + "beta")).singleElement()
        .satisfies(c -> {
          assertThat(c.getStatus()).isFalse();
          assertThat(c.getMessage()).contains("beta is down");
        });
    assertThat(conditions).filteredOn(c -> c.getType().equals(RuntimeInfo.BACKEND_CONDITION_PREFIX + "alpha")).singleElement()
        .extracting(RuntimeCondition::getStatus).as("the default backend has its own condition too").isEqualTo(true);
  }

  @Test
  void statusWithTheDefaultBackendDownIsNotReady() {
    crigate.alpha.setAvailable(false);
    List<RuntimeCondition> conditions = crigate.runtime.status(StatusRequest.getDefaultInstance()).getStatus().getConditionsList();
    assertThat(conditions).filteredOn(c -> c.getType().equals("RuntimeReady")).singleElement()
        .satisfies(c -> assertThat(c.getStatus()).isFalse());
  }

  @Test
  void backendsSeeTheCallersDeadline() {
    String sandbox = crigate.runPod("web", "");
    Deadline deadline = Deadline.after(1, TimeUnit.MINUTES);

    crigate.runtime.withDeadline(deadline).podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(sandbox).build());
    assertThat(crigate.alpha.lastDeadline()).isNotNull();
    assertThat(crigate.alpha.lastDeadline().timeRemaining(TimeUnit.SECONDS)).isBetween(1L, 60L);

    // A fan-out runs each backend on its own virtual thread; the deadline must travel with it.
    crigate.runtime.withDeadline(deadline).listPodSandbox(ListPodSandboxRequest.getDefaultInstance());
    assertThat(crigate.beta.lastDeadline()).isNotNull();
    assertThat(crigate.beta.lastDeadline().timeRemaining(TimeUnit.SECONDS)).isBetween(1L, 60L);
  }

  @Test
  void aStopsGracePeriodAndAnExecsOwnTimeoutExtendTheBackendsCallTimeout() {
    String container = crigate.createContainer(crigate.runPod("web", ""), "app");
    long callTimeoutSeconds = BackendTimeouts.DEFAULTS.callTimeout().toSeconds();

    crigate.runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(container).build());
    assertThat(crigate.alpha.lastDeadline().timeRemaining(TimeUnit.SECONDS)).isLessThanOrEqualTo(callTimeoutSeconds);

    // A stop may wait out the container's grace period on a healthy runtime: that is not a freeze.
    crigate.runtime.stopContainer(StopContainerRequest.newBuilder().setContainerId(container).setTimeout(3600).build());
    assertThat(crigate.alpha.lastDeadline().timeRemaining(TimeUnit.SECONDS)).isGreaterThan(3600);

    crigate.runtime.execSync(ExecSyncRequest.newBuilder().setContainerId(container).addCmd("true").setTimeout(600).build());
    assertThat(crigate.alpha.lastDeadline().timeRemaining(TimeUnit.SECONDS)).isGreaterThan(600);
    // CRI: an exec without a timeout runs as long as it likes; only the caller's deadline bounds it.
    crigate.runtime.execSync(ExecSyncRequest.newBuilder().setContainerId(container).addCmd("true").build());
    assertThat(crigate.alpha.lastDeadline()).isNull();
  }

  @Test
  void containerEventsFromEveryBackendAreMergedAndCancellationReachesThem() {
    List<String> received = new CopyOnWriteArrayList<>();
    Context.CancellableContext subscription = Context.current().withCancellation();
    subscription.run(() -> crigate.asyncRuntime.getContainerEvents(GetEventsRequest.getDefaultInstance(), new StreamObserver<>() {
      @Override
      public void onNext(ContainerEventResponse event) {
        received.add(event.getContainerId());
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    }));
    await().until(() -> crigate.alpha.subscribers() == 1 && crigate.beta.subscribers() == 1);

    crigate.alpha.emit(ContainerEventResponse.newBuilder().setContainerId("from-alpha").build());
    crigate.beta.emit(ContainerEventResponse.newBuilder().setContainerId("from-beta").build());
    await().until(() -> received.size() == 2);
    assertThat(received).containsExactlyInAnyOrder("from-alpha", "from-beta");

    subscription.cancel(null);
    await().until(() -> crigate.alpha.subscribers() == 0 && crigate.beta.subscribers() == 0);
  }

  /** Issue 16 item 12: events wait for a caller that is not ready, and one that never reads is cut off. */
  @Test
  void containerEventsWaitForTheCallersReadinessAndASilentCallerIsCutOff() {
    List<String> received = new CopyOnWriteArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<ClientCallStreamObserver<GetEventsRequest>> call = new AtomicReference<>();
    crigate.asyncRuntime.getContainerEvents(GetEventsRequest.getDefaultInstance(),
        new ClientResponseObserver<GetEventsRequest, ContainerEventResponse>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<GetEventsRequest> requestStream) {
            requestStream.disableAutoRequestWithInitial(0);
            call.set(requestStream);
          }

          @Override
          public void onNext(ContainerEventResponse event) {
            received.add(event.getContainerId());
          }

          @Override
          public void onError(Throwable t) {
            failure.set(t);
          }

          @Override
          public void onCompleted() {}
        });
    await().until(() -> crigate.alpha.subscribers() == 1 && crigate.beta.subscribers() == 1);

    for (int i = 0; i < 10; i++) {
      crigate.alpha.emit(ContainerEventResponse.newBuilder().setContainerId("e" + i).build());
    }
    call.get().request(10);
    await().until(() -> received.size() == 10);
    assertThat(received).containsExactly("e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9");

    for (int i = 0; i <= ContainerEvents.MAX_BUFFERED; i++) {
      crigate.beta.emit(ContainerEventResponse.newBuilder().setContainerId("unread").build());
    }
    await().until(() -> failure.get() != null);
    assertThat(Status.fromThrowable(failure.get()).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    await().until(() -> crigate.alpha.subscribers() == 0 && crigate.beta.subscribers() == 0);
    assertThat(received).hasSize(10);
  }

  @Test
  void updateRuntimeConfigReachesEveryBackend() {
    crigate.runtime.updateRuntimeConfig(UpdateRuntimeConfigRequest.getDefaultInstance());
    assertThat(crigate.alpha.calls()).isEqualTo(1);
    assertThat(crigate.beta.calls()).isEqualTo(1);
  }
}
