package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ListContainersRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The topology-aware policy on real containerd, through {@code crigate serve}, with nri-plugins' and
 * CRI Resource Manager's pod annotations as their documentation writes them. This machine has two
 * CPUs, one NUMA node and no isolated CPU: 0 is reserved, so a shared container runs on 0-1 and a
 * container that asks for the reserved CPUs on 0 alone.
 */
class TopologyAwarePolicyIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("""
          policy: {active: topology-aware, reservedCpus: "0", kubeletCpuManagerState: "${WORK_DIR}/none"}
          """);

  @RegisterExtension
  final PolicyPods pods = new PolicyPods(crigate, infra);

  @Test
  void preferReservedCpusRunsTheContainerOnTheReservedCpusUnlessItsContainerOptsOut() {
    // nri-plugins' topology-aware.md, "Reserved Resources", both lines verbatim
    Map<String, String> example = Map.of(
        "prefer-reserved-cpus.resource-policy.nri.io/pod", "true",
        "prefer-reserved-cpus.resource-policy.nri.io/container.special", "false");
    String app = pods.startShell("app", Map.of("cpu", "100m"), Map.of(), example).containerId();
    String special = pods.startShell("special", Map.of("cpu", "100m"), Map.of(), example).containerId();
    // CRI Resource Manager's spelling, as its end-to-end tests write it
    String criRm = pods.startShell("cri-rm", Map.of("cpu", "100m"), Map.of(),
        Map.of("prefer-reserved-cpus.cri-resource-manager.intel.com/pod", "true")).containerId();

    assertThat(pods.allowedCpus(app)).isEqualTo("0");
    assertThat(pods.allowedCpus(special)).isEqualTo("0-1");
    assertThat(pods.allowedCpus(criRm)).isEqualTo("0");
  }

  @Test
  void preferSharedCpusKeepsAGuaranteedContainerOnTheSharedCpus() {
    // nri-plugins' topology-aware.md: "opt in the whole pod to shared CPU core allocation"
    String shared = pods.startShell("shared", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"),
        Map.of("prefer-shared-cpus.resource-policy.nri.io/pod", "true")).containerId();
    assertThat(pods.allowedCpus(shared)).isEqualTo("0-1");
    // without it the same container takes CPU 1 for itself
    String exclusive = pods.startShell("exclusive", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"));
    assertThat(pods.allowedCpus(exclusive)).isEqualTo("1");
  }

  @Test
  void requireIsolatedCpusRefusesTheContainerWhenNoCpuIsIsolated() {
    // nri-plugins' prefer-isolated-cpus example with the require- key the same document offers in its place
    assertThatThrownBy(() -> pods.startShell("needs-isolated", Map.of("cpu", "1", "memory", "64Mi"),
        Map.of("cpu", "1", "memory", "64Mi"), Map.of("require-isolated-cpus.resource-policy.nri.io/container.needs-isolated", "true")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("require-isolated-cpus", "asks for 1 isolated CPUs");
        });
    // nothing was created on containerd
    assertThat(crigate.cri().runtime().listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .noneMatch(c -> c.getMetadata().getName().equals("needs-isolated"));
  }

  @Test
  void aHintCrigateCannotHonourIsLoggedOncePerPodAndAgainAfterARestart() throws Exception {
    // nri-plugins' topology-aware.md, "Shared, Exclusive, and Isolated CPU Preference, CPU Priorities"
    String pump = pods.startShell("pump", Map.of("cpu", "100m"), Map.of(), Map.of(
        "prefer-cpu-priority.resource-policy.nri.io/pod", "low",
        "prefer-cpu-priority.resource-policy.nri.io/container.pump", "high")).containerId();
    assertThat(pods.allowedCpus(pump)).isEqualTo("0-1");
    assertThat(warnings()).isEqualTo(2);

    // kill -9 and restart: the pod comes back through Synchronize and says it once more
    crigate.process().killHard();
    crigate.process().restart();
    assertThat(warnings()).as(crigate.process().logTail()).isEqualTo(4);
  }

  private static long warnings() throws Exception {
    try (var lines = Files.lines(crigate.workDir().resolve("crigate.log"))) {
      return lines.filter(line -> line.contains("pod crigate-it/policy-pump: annotation prefer-cpu-priority.resource-policy.nri.io/")
          && line.contains("crigate knows no CPU priorities")).count();
    }
  }
}
