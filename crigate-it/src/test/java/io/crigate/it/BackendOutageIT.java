package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A backend that goes away is UNAVAILABLE, never NOT_FOUND: the kubelet would take a missing pod
 * for a dead one and recreate it. When the backend returns, its pods are still there.
 */
class BackendOutageIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  @Order(1)
  static final ContainerdInstance flaky = new ContainerdInstance(infra, "it-outage");

  @RegisterExtension
  @Order(2)
  static final CrigateExtension crigate =
      CrigateExtension.routing("default:" + infra.containerdA(), "flaky:" + flaky.endpoint());

  @Test
  void aStoppedBackendIsUnavailableAndItsPodsSurviveItsReturn() throws Exception {
    CriConnection cri = crigate.cri();
    PodSandboxConfig steadyPod = hostNetworkPod("steady", crigate.workDir().resolve("pods"));
    PodSandboxConfig flakyPod = hostNetworkPod("flaky", crigate.workDir().resolve("pods"));
    String steadyId = cri.runtime().runPodSandbox(runPod(steadyPod, "")).getPodSandboxId();
    String flakyId = cri.runtime().runPodSandbox(runPod(flakyPod, "flaky")).getPodSandboxId();
    cri.images().pullImage(pull(infra.baseImage(), flakyPod, "flaky"));
    String containerId = cri.runtime().createContainer(create(flakyId,
        shellContainer("waiting", infra.baseImage(), "sleep 3600"), flakyPod)).getContainerId();

    flaky.stopDaemon();

    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = cri.runtime(Duration.ofSeconds(10));
    assertUnavailable(() -> runtime.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(flakyId).build()));
    assertUnavailable(() -> runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build()));
    assertUnavailable(() -> runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build()));
    assertUnavailable(() -> runtime.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()));
    assertThat(cri.podState(steadyId)).as("the other backend still serves").isEqualTo(PodSandboxState.SANDBOX_READY);

    flaky.startDaemon();

    await("the flaky backend serves again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> cri.podState(flakyId) == PodSandboxState.SANDBOX_READY);
    assertThat(cri.containerState(containerId)).isEqualTo(ContainerState.CONTAINER_CREATED);
    assertThat(cri.podUids()).contains(steadyPod.getMetadata().getUid(), flakyPod.getMetadata().getUid());

    cri.removePod(flakyId);
    cri.removePod(steadyId);
  }

  private static void assertUnavailable(ThrowingCallable call) {
    Consumer<StatusRuntimeException> unavailable =
        e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, unavailable);
  }
}
