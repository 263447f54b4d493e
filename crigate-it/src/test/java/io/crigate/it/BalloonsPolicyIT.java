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
 * larger cpuset) and deflates when it leaves. This machine has two CPUs, so nothing is reserved: a
 * balloon of the {@code team} type can hold both.
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
                  maxCPUs: 2
          """);

  final PolicyPods pods = new PolicyPods(crigate, infra);

  @AfterEach
  void removePods() {
    pods.removeAll();
  }

  @Test
  void twoPodsShareTheirBalloonWhichGrowsAndShrinksWithThem() throws Exception {
    // the pods' namespace, crigate-it, matches the team type: 500m needs one CPU
    String first = pods.startShell("first", Map.of("cpu", "500m"), Map.of());
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
  }
}
