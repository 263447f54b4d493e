package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The routed reads crigate relays below its gRPC call layer, against real containerd: what the
 * kubelet gets is containerd's own answer or error, an id crigate does not know still takes the
 * call layer's path, the kubelet's own deadline ends a call to a frozen runtime without marking it
 * unhealthy, and the call metrics count relayed calls by method and code. Relayed removals drop
 * crigate's record before the kubelet has the answer, so it can create again at once.
 */
class RelayIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  @Order(1)
  static final ContainerdInstance slow = new ContainerdInstance(infra, "it-relay");

  @RegisterExtension
  @Order(2)
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA()).withConfig("""
      backends:
        - name: slow
          type: cri
          handlers: [slow]
          endpoint: %s
          callTimeout: 60s
          probeInterval: 10m
      metrics:
        enabled: true
        port: 0
      """.formatted(slow.endpoint()));

  @Test
  void relayedReadsAreContainerdsOwnAnswersAndErrorsAndAreCounted() throws Exception {
    CriConnection cri = crigate.cri();
    PodSandboxConfig pod = hostNetworkPod("relayed", crigate.workDir().resolve("pods"));
    cri.images().pullImage(pull(infra.baseImage(), pod, ""));
    String podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
    String containerId = cri.runtime().createContainer(create(podId,
        shellContainer("sleeper", infra.baseImage(), "sleep 600"), pod)).getContainerId();
    try (CriConnection containerd = CriConnection.open(infra.containerdA())) {
      ContainerStatusRequest containerStatus = ContainerStatusRequest.newBuilder().setContainerId(containerId).build();
      PodSandboxStatusRequest podStatus = PodSandboxStatusRequest.newBuilder().setPodSandboxId(podId).build();

      assertThat(cri.runtime().containerStatus(containerStatus)).isEqualTo(containerd.runtime().containerStatus(containerStatus));
      assertThat(cri.runtime().podSandboxStatus(podStatus).getStatus())
          .isEqualTo(containerd.runtime().podSandboxStatus(podStatus).getStatus());

      // removed behind crigate's back: containerd's NOT_FOUND, word for word
      containerd.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build());
      StatusRuntimeException direct = catchStatus(() -> containerd.runtime().containerStatus(containerStatus));
      StatusRuntimeException relayed = catchStatus(() -> cri.runtime().containerStatus(containerStatus));
      assertThat(relayed.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(relayed.getStatus().getDescription()).isEqualTo(direct.getStatus().getDescription());
    } finally {
      cri.removePod(podId);
    }

    // an id crigate has no record of: every backend is asked, and crigate answers itself
    StatusRuntimeException unknown = catchStatus(() -> cri.runtime().containerStatus(
        ContainerStatusRequest.newBuilder().setContainerId("no-such-container").build()));
    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(unknown.getStatus().getDescription()).isEqualTo("container no-such-container");

    // two NOT_FOUND: the relayed one and crigate's own
    String metrics = MetricsEndpoint.scrapeUntil(crigate, Pattern.compile(
        "crigate_cri_request_errors_total\\{code=\"NOT_FOUND\",method=\"ContainerStatus\"} 2(\\.0)?\n"));
    assertThat(metrics)
        .containsPattern("crigate_cri_request_duration_seconds_count\\{method=\"ContainerStatus\"} 3\n")
        .containsPattern("crigate_cri_request_duration_seconds_count\\{method=\"PodSandboxStatus\"} 1\n")
        .contains("crigate_backend_request_duration_seconds_count{backend=\"default\",method=\"ContainerStatus\"}");
  }

  /**
   * RemoveContainer and RemovePodSandbox take the relay here (no plugin follows the pod): the record
   * must be gone when the answer arrives, whether containerd removed the object or no longer had it,
   * and the same pod and container, by name, can be created again right after.
   */
  @Test
  void relayedRemovalsDropTheRecordBeforeTheAnswerAndTheSamePodCanBeCreatedAgainAtOnce() throws Exception {
    CriConnection cri = crigate.cri();
    PodSandboxConfig pod = hostNetworkPod("removed", crigate.workDir().resolve("pods"));
    ContainerConfig sleeper = shellContainer("sleeper", infra.baseImage(), "sleep 600");
    cri.images().pullImage(pull(infra.baseImage(), pod, ""));
    String podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
    try (CriConnection containerd = CriConnection.open(infra.containerdA())) {
      String containerId = cri.runtime().createContainer(create(podId, sleeper, pod)).getContainerId();
      cri.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build());
      assertNoRecord(cri, containerId);
      // the same name again: containerd frees a container's name only when it is removed
      String again = cri.runtime().createContainer(create(podId, sleeper, pod)).getContainerId();
      assertThat(cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(again).build())
          .getStatus().getId()).isEqualTo(again);

      // removed behind crigate's back: containerd answers a removal of what it no longer has (OK, as
      // RemoveContainer is idempotent), the record goes all the same
      RemoveContainerRequest removeAgain = RemoveContainerRequest.newBuilder().setContainerId(again).build();
      containerd.runtime().removeContainer(removeAgain);
      assertThat(cri.runtime().removeContainer(removeAgain)).isEqualTo(containerd.runtime().removeContainer(removeAgain));
      assertNoRecord(cri, again);

      String removed = podId;
      cri.removePod(removed);
      StatusRuntimeException gone = catchStatus(() ->
          cri.runtime().podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(removed).build()));
      assertThat(gone.getStatus().getDescription()).as("crigate's own answer: no record left").isEqualTo("sandbox " + removed);
      // the same pod (name, namespace, uid, attempt) again: containerd frees the name only when it is removed
      podId = cri.runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
      String third = cri.runtime().createContainer(create(podId, sleeper, pod)).getContainerId();
      assertThat(cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(third).build())
          .getStatus().getId()).isEqualTo(third);
    } finally {
      cri.removePod(podId);
    }
  }

  /**
   * Without a record crigate asks every backend and answers NOT_FOUND in its own words; a record left
   * behind would have relayed the call and passed containerd's words on.
   */
  private static void assertNoRecord(CriConnection cri, String containerId) {
    StatusRuntimeException gone = catchStatus(() ->
        cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build()));
    assertThat(gone.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(gone.getStatus().getDescription()).as("crigate's own answer: no record left").isEqualTo("container " + containerId);
  }

  @Test
  void theKubeletsOwnDeadlineEndsACallToAFrozenRuntimeWhichStaysHealthy() throws Exception {
    CriConnection cri = crigate.cri();
    PodSandboxConfig pod = hostNetworkPod("frozen-read", crigate.workDir().resolve("pods"));
    String podId = cri.runtime().runPodSandbox(runPod(pod, "slow")).getPodSandboxId();
    PodSandboxStatusRequest status = PodSandboxStatusRequest.newBuilder().setPodSandboxId(podId).build();
    try {
      slow.freeze();
      try {
        long start = System.nanoTime();
        StatusRuntimeException late = catchStatus(() -> cri.runtime(Duration.ofSeconds(2)).podSandboxStatus(status));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("far below the backend's call timeout")
            .isLessThan(Duration.ofSeconds(30));
      } finally {
        slow.thaw();
      }
      // the kubelet's deadline is not the backend's fault: no fail-fast, the next read is answered
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
          assertThat(cri.runtime(Duration.ofSeconds(10)).podSandboxStatus(status).getStatus().getState())
              .isEqualTo(PodSandboxState.SANDBOX_READY));
    } finally {
      cri.removePod(podId);
    }
  }

  private static StatusRuntimeException catchStatus(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call succeeded");
  }

}
