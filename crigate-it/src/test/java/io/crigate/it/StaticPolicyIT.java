package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The static policy on real containerd, through {@code crigate serve}: what a process inside each
 * container is allowed to run on, before and after a crash of crigate and a live switch to
 * {@code none}, and the switch on /metrics. This machine has two CPUs: 0 is reserved (it stays in the shared pool, as with the
 * kubelet's static policy) and 1 is the one that can be given out.
 */
class StaticPolicyIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("""
          policy:
            active: static
            reservedCpus: "0"
            configFile: ${WORK_DIR}/policy.yaml
            kubeletCpuManagerState: ${WORK_DIR}/no-kubelet-cpu-manager-state
          metrics:
            enabled: true
            port: 0
          """);

  final PolicyPods pods = new PolicyPods(crigate, infra);

  @AfterEach
  void removePods() {
    pods.removeAll();
  }

  @Test
  void guaranteedGetsCpu1AloneBurstableSharesTheRestAndNoneWidensBoth() throws Exception {
    String guaranteed = pods.startShell("guaranteed", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"));
    String burstable = pods.startShell("burstable", Map.of("cpu", "100m"), Map.of());

    // reserved 0 is never given out, so the one exclusive CPU is 1; the shared pool keeps 0
    assertThat(pods.allowedCpus(guaranteed)).isEqualTo("1");
    assertThat(pods.allowedCpus(burstable)).isEqualTo("0");

    // kill -9 and restart: the allocation comes back from the state DB, checked against containerd
    crigate.process().killHard();
    crigate.process().restart();
    assertThat(pods.allowedCpus(guaranteed)).isEqualTo("1");
    assertThat(pods.allowedCpus(burstable)).isEqualTo("0");
    assertThat(crigate.process().logTail()).contains("synchronized with").doesNotContain("could not update");

    Files.writeString(policyFile(), "active: none\n");

    await("both containers widened after the switch to none").atMost(Duration.ofSeconds(60))
        .until(() -> pods.allowedCpus(guaranteed).equals("0-1") && pods.allowedCpus(burstable).equals("0-1"));
    // what the policy did, on /metrics: the policy that runs now, the one switch since the restart
    assertThat(MetricsEndpoint.scrapeUntil(crigate, Pattern.compile("(?m)^crigate_policy_switches_total 1(\\.0)?$")))
        .contains("crigate_policy_active_info{policy=\"none\"} 1")
        .doesNotContain("crigate_policy_active_info{policy=\"static\"}");
  }

  /**
   * {@code availableCpus} set live by the node's file: a running container leaves the CPU it no
   * longer may use, and comes back to it when the file is gone.
   */
  @Test
  void availableCpusSetLiveMovesARunningContainerOffTheOtherCpus() throws Exception {
    Files.deleteIfExists(policyFile());
    String burstable = pods.startShell("burstable", Map.of("cpu", "100m"), Map.of());
    await("the shared pool, every CPU").atMost(Duration.ofSeconds(60)).until(() -> pods.allowedCpus(burstable).equals("0-1"));

    Files.writeString(policyFile(), "availableCpus: \"1\"\nreservedCpus: \"\"\n");
    await("only CPU 1 once the file limits the policy to it").atMost(Duration.ofSeconds(60))
        .until(() -> pods.allowedCpus(burstable).equals("1"));

    Files.delete(policyFile());
    await("every CPU again without the file").atMost(Duration.ofSeconds(60))
        .until(() -> pods.allowedCpus(burstable).equals("0-1"));
  }

  static Path policyFile() {
    return crigate.workDir().resolve("policy.yaml");
  }
}
