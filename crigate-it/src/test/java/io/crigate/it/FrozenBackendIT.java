package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A backend that stops answering without going away (SIGSTOP: its socket still accepts) must not
 * hold the kubelet until its own deadline. crigate answers UNAVAILABLE naming the backend once the
 * backend's call timeout passes, then fails its calls at once until a health probe succeeds, and
 * Status keeps the node Ready while the frozen backend's own condition says it is not.
 */
class FrozenBackendIT {

  static final Infra infra = Infra.fromEnvironment();
  /** Far above the backend's call timeout: a call that waits for the frozen daemon ends here instead. */
  static final Duration KUBELET_DEADLINE = Duration.ofSeconds(30);
  static final String FROZEN_CONDITION = "crigate.io/backend-ready/frozen";
  static final String DEFAULT_CONDITION = "crigate.io/backend-ready/default";

  @RegisterExtension
  @Order(1)
  static final ContainerdInstance frozen = new ContainerdInstance(infra, "it-frozen");

  @RegisterExtension
  @Order(2)
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA()).withConfig("""
      backends:
        - name: frozen
          type: cri
          handlers: [frozen]
          endpoint: %s
          callTimeout: 2s
          probeInterval: 500ms
          probeTimeout: 500ms
      """.formatted(frozen.endpoint()));

  @Test
  void aFrozenBackendFailsFastNamedAndTheNodeStaysReady() throws Exception {
    CriConnection cri = crigate.cri();
    PodSandboxConfig steadyPod = hostNetworkPod("steady", crigate.workDir().resolve("pods"));
    PodSandboxConfig frozenPod = hostNetworkPod("frozen", crigate.workDir().resolve("pods"));
    String steadyId = cri.runtime().runPodSandbox(runPod(steadyPod, "")).getPodSandboxId();
    String frozenId = cri.runtime().runPodSandbox(runPod(frozenPod, "frozen")).getPodSandboxId();
    RuntimeServiceGrpc.RuntimeServiceBlockingStub kubelet = cri.runtime(KUBELET_DEADLINE);
    PodSandboxStatusRequest frozenStatus = PodSandboxStatusRequest.newBuilder().setPodSandboxId(frozenId).build();

    frozen.freeze();
    try {
      // First, before any probe can have noticed: a fan-out (images of every backend) and a routed call.
      assertUnavailableNaming("frozen", () -> cri.images(KUBELET_DEADLINE).listImages(ListImagesRequest.getDefaultInstance()));
      assertUnavailableNaming("frozen", () -> kubelet.podSandboxStatus(frozenStatus));
      await("the health probe marks the frozen backend").atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(condition(kubelet.status(StatusRequest.getDefaultInstance()), FROZEN_CONDITION))
              .extracting(RuntimeCondition::getStatus).isEqualTo(false));
      List<RuntimeCondition> conditions = kubelet.status(StatusRequest.getDefaultInstance()).getStatus().getConditionsList();
      assertThat(condition(conditions, "RuntimeReady").getStatus()).as("the default backend decides readiness").isTrue();
      assertThat(condition(conditions, DEFAULT_CONDITION).getStatus()).isTrue();
      assertThat(condition(conditions, FROZEN_CONDITION).getMessage()).contains("frozen");
      // Unhealthy now: failing fast says so, without another wait for the call timeout.
      assertUnavailableNaming("unhealthy", () -> kubelet.podSandboxStatus(frozenStatus));
      assertUnavailableNaming("frozen", () -> kubelet.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()));
      assertThat(cri.podState(steadyId)).as("the other backend still serves").isEqualTo(PodSandboxState.SANDBOX_READY);
    } finally {
      frozen.thaw();
    }

    await("the thawed backend serves again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> cri.podState(frozenId) == PodSandboxState.SANDBOX_READY);
    assertThat(condition(kubelet.status(StatusRequest.getDefaultInstance()), FROZEN_CONDITION).getStatus()).isTrue();
    cri.removePod(frozenId);
    cri.removePod(steadyId);
  }

  private static RuntimeCondition condition(StatusResponse status, String type) {
    return condition(status.getStatus().getConditionsList(), type);
  }

  private static RuntimeCondition condition(List<RuntimeCondition> conditions, String type) {
    return conditions.stream().filter(c -> c.getType().equals(type)).findFirst()
        .orElseThrow(() -> new AssertionError("no condition " + type + " in " + conditions));
  }

  /** UNAVAILABLE from crigate, with {@code text} in the message, and not the client's deadline. */
  private static void assertUnavailableNaming(String text, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains(text);
    });
  }
}
