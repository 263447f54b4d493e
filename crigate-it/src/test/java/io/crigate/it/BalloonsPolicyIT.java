package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The balloons policy on real containerd, through {@code crigate serve}: two pods of one balloon
 * share its CPUs, the balloon inflates when the second joins (the first container is updated to the
 * larger cpuset) and deflates when it leaves; a pre-created balloon ({@code minBalloons}) holds its
 * CPU without containers; namespaces get balloons of their own ({@code preferPerNamespaceBalloon}).
 * This machine has two CPUs, so nothing is reserved: a balloon of the {@code team} type can hold both.
 */
class BalloonsPolicyIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("""
          policy:
            active: balloons
            reservedCpus: ""
            kubeletCpuManagerState: ${WORK_DIR}/no-kubelet-cpu-manager-state
            balloons:
              balloonTypes:
                - name: team
                  namespaces: ["crigate-*"]
                  minCPUs: 1
                  maxCPUs: 2
                  minBalloons: 1
                  preferPerNamespaceBalloon: true
          """);

  final PolicyPods pods = new PolicyPods(crigate, infra);

  @AfterEach
  void removePods() {
    pods.removeAll();
  }

  @Test
  void twoPodsShareTheirBalloonWhichGrowsAndShrinksWithThem() throws Exception {
    // the pods' namespace, crigate-it, matches the team type: 500m needs one CPU
    PolicyPods.Started firstPod = pods.startShell("first", Map.of("cpu", "500m"), Map.of(), Map.of());
    String first = firstPod.containerId();
    String alone = pods.allowedCpus(first);
    assertThat(alone).matches("[01]");

    // 500m + 800m needs two CPUs: the balloon inflates and both containers run on it
    PolicyPods.Started second = pods.startShell("second", Map.of("cpu", "800m"), Map.of(),
        Map.of("balloon.balloons.resource-policy.nri.io", "team"));
    assertThat(pods.allowedCpus(second.containerId())).isEqualTo("0-1");
    await("the first container updated to the inflated balloon").atMost(WAIT)
        .until(() -> pods.allowedCpus(first).equals("0-1"));

    // crash and restart: the balloon comes back from the state DB and nobody is re-pinned
    crigate.process().killHard();
    crigate.process().restart();
    assertThat(pods.allowedCpus(first)).isEqualTo("0-1");
    assertThat(pods.allowedCpus(second.containerId())).isEqualTo("0-1");
    assertThat(crigate.process().logTail()).contains("synchronized with").doesNotContain("could not update");

    // the second pod leaves: the balloon deflates to one CPU, and the first container with it
    pods.remove(second);
    await("the first container updated to the deflated balloon").atMost(WAIT)
        .until(() -> pods.allowedCpus(first).matches("[01]"));
    // containers are removed before their pods, as the kubelet does, so the next test starts from empty balloons
    pods.remove(firstPod);
  }

  @Test
  void aMinBalloonKeepsItsCpuWithoutContainersSoTheDefaultBalloonNeverWidensOverIt() {
    // the pre-created team balloon holds its minCPUs (1) from the start: a pod of no team runs on the other one
    PolicyPods.Started web = pods.startShellIn("it-web", "web", Map.of("cpu", "100m"), Map.of(), Map.of());
    String defaultCpu = pods.allowedCpus(web.containerId());
    assertThat(defaultCpu).matches("[01]");

    // a team pod runs in the pre-created balloon, on the other CPU
    PolicyPods.Started team = pods.startShellIn("crigate-a", "team", Map.of("cpu", "100m"), Map.of(), Map.of());
    String teamCpu = pods.allowedCpus(team.containerId());
    assertThat(teamCpu).matches("[01]").isNotEqualTo(defaultCpu);

    // its last container leaves, the balloon stays: the default pod is not widened over its CPU
    pods.remove(team);
    assertThat(pods.allowedCpus(web.containerId())).isEqualTo(defaultCpu);
    pods.remove(web);
  }

  @Test
  void eachNamespaceGetsABalloonOfItsOwnAndANamespacesPodsShareIt() {
    PolicyPods.Started a1 = pods.startShellIn("crigate-a", "a1", Map.of("cpu", "200m"), Map.of(), Map.of());
    PolicyPods.Started b1 = pods.startShellIn("crigate-b", "b1", Map.of("cpu", "200m"), Map.of(), Map.of());
    PolicyPods.Started a2 = pods.startShellIn("crigate-a", "a2", Map.of("cpu", "200m"), Map.of(), Map.of());
    String a = pods.allowedCpus(a1.containerId());
    assertThat(a).matches("[01]");
    // without preferPerNamespaceBalloon, b1 would join a1's balloon, which has room for it
    assertThat(pods.allowedCpus(b1.containerId())).matches("[01]").isNotEqualTo(a);
    assertThat(pods.allowedCpus(a2.containerId())).isEqualTo(a);
    for (PolicyPods.Started started : new PolicyPods.Started[] {a2, b1, a1}) {
      pods.remove(started);
    }
  }
}
