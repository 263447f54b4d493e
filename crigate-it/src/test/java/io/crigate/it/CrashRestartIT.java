package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.*;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** crigate killed with SIGKILL mid-life picks up its pods and containers after a restart. */
class CrashRestartIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate =
      CrigateExtension.routing("default:" + infra.containerdA(), "other:" + infra.containerdB());

  @Test
  void continuesAPodAndContainerCreatedBeforeAKill9() throws Exception {
    PodSandboxConfig pod = hostNetworkPod("crash", crigate.workDir().resolve("pods"));
    CriConnection cri = crigate.cri();
    // On B, so that routing after the restart must come from crigate's recorded state, not the default.
    String podId = cri.runtime().runPodSandbox(runPod(pod, "other")).getPodSandboxId();
    cri.images().pullImage(pull(infra.baseImage(), pod, "other"));
    String containerId = cri.runtime().createContainer(create(podId,
        shellContainer("survivor", infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done"), pod)).getContainerId();

    crigate.process().killHard();
    assertThat(crigate.process().isAlive()).isFalse();
    crigate.process().restart();

    assertThat(cri.podState(podId)).isEqualTo(PodSandboxState.SANDBOX_READY);
    assertThat(cri.containerState(containerId)).isEqualTo(ContainerState.CONTAINER_CREATED);
    cri.runtime().startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());
    assertThat(cri.containerState(containerId)).isEqualTo(ContainerState.CONTAINER_RUNNING);
    cri.runtime().stopContainer(StopContainerRequest.newBuilder().setContainerId(containerId).setTimeout(10).build());
    assertThat(cri.containerState(containerId)).isEqualTo(ContainerState.CONTAINER_EXITED);
    cri.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build());
    assertThat(cri.runtime().listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .extracting(Container::getId)
        .doesNotContain(containerId);
    cri.removePod(podId);
    assertThat(cri.podUids()).doesNotContain(pod.getMetadata().getUid());
    try (CriConnection containerdB = CriConnection.open(infra.containerdB())) {
      assertThat(containerdB.podUids()).as("the pod is gone from containerd B too").doesNotContain(pod.getMetadata().getUid());
    }
  }
}
