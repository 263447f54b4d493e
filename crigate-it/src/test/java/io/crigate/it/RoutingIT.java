package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.PodSandboxConfig;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pods land on the containerd their RuntimeClass handler names. Each containerd is asked directly,
 * over its own socket, which one holds the pod.
 */
class RoutingIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate =
      CrigateExtension.routing("default:" + infra.containerdA(), "other:" + infra.containerdB());

  static CriConnection containerdA;
  static CriConnection containerdB;

  @BeforeAll
  static void connectToEachContainerdDirectly() {
    containerdA = CriConnection.open(infra.containerdA());
    containerdB = CriConnection.open(infra.containerdB());
  }

  @AfterAll
  static void disconnect() {
    containerdA.close();
    containerdB.close();
  }

  enum Target { A, B }

  record Case(String name, String handler, Target expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("no handler (the kubelet's default) goes to the default backend, A", "", Target.A),
        new Case("handler 'default' goes to A", "default", Target.A),
        new Case("handler 'other' goes to B", "other", Target.B));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void runsThePodOnTheContainerdItsHandlerNames(Case c) {
    PodSandboxConfig pod = hostNetworkPod("routing", crigate.workDir().resolve("pods"));
    String uid = pod.getMetadata().getUid();

    String podId = crigate.cri().runtime().runPodSandbox(runPod(pod, c.handler())).getPodSandboxId();

    CriConnection chosen = c.expected() == Target.A ? containerdA : containerdB;
    CriConnection other = c.expected() == Target.A ? containerdB : containerdA;
    assertThat(chosen.podUids()).as("pods on containerd %s", c.expected()).contains(uid);
    assertThat(other.podUids()).as("pods on the other containerd").doesNotContain(uid);

    crigate.cri().removePod(podId);
    assertThat(chosen.podUids()).as("removal reached containerd %s", c.expected()).doesNotContain(uid);
  }
}
