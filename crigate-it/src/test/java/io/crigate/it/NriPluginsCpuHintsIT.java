package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * nri-plugins' {@code prefer-isolated-cpus} and {@code unlimited-burstable} hints, as its
 * topology-aware documentation writes them, on the topology-aware policy of {@code crigate serve}
 * (and static-plus, which reads the first too) in front of the real containerd. This host has two CPUs, no isolated one and one NUMA node, where
 * neither hint could change a cpuset; so crigate reads its topology from a copy of this host's
 * sysfs ({@code policy.sysfsRoot}) that differs in one respect per test, and the cpusets it computes
 * pin real containers, read back inside them through ExecSync.
 */
class NriPluginsCpuHintsIT {

  static final Infra infra = Infra.fromEnvironment();

  @TempDir
  Path work;
  @RegisterExtension
  final PerTestCrigate crigate = new PerTestCrigate();
  private PolicyPods pods;

  private void serve(String policy, HostSysfs sysfs) {
    pods = crigate.adopt(CrigateProcess.start(work, List.of("default:" + infra.containerdA()), """
        policy: {active: %s, sysfsRoot: "%s", kubeletCpuManagerState: "%s/none"}
        """.formatted(policy, sysfs.root(), work)), work.resolve("pods"), infra);
  }

  /** nri-plugins' example: the whole pod opts in, container C1 opts out. */
  private static final Map<String, String> PREFER_ISOLATED_EXAMPLE = Map.of(
      "prefer-isolated-cpus.resource-policy.nri.io/pod", "true",
      "prefer-isolated-cpus.resource-policy.nri.io/container.C1", "false");

  private static final Map<String, String> ONE_CPU = Map.of("cpu", "1", "memory", "64Mi");

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"topology-aware", "static-plus"})
  void preferIsolatedCpusGivesTheIsolatedCpuAndTheContainerThatOptsOutCannotHaveOne(String policy) {
    serve(policy, HostSysfs.copyOfThisHost(work.resolve("sys")).isolate("1"));

    // C1 opts out, in either spelling: the only CPU not isolated is the shared pool's last, which is never given away
    for (Map<String, String> optOut : List.of(PREFER_ISOLATED_EXAMPLE,
        Map.of("prefer-isolated-cpus.cri-resource-manager.intel.com/container.C1", "false"))) {
      assertThatThrownBy(() -> pods.startShell("C1", ONE_CPU, ONE_CPU, optOut))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }
    // the pod's "true" applies to its other container: the isolated CPU, exclusively
    String isolated = pods.startShell("C0", ONE_CPU, ONE_CPU, PREFER_ISOLATED_EXAMPLE).containerId();
    // shared containers never run on an isolated CPU
    String shared = pods.startShell("shared", Map.of("cpu", "100m"), Map.of());

    assertThat(pods.allowedCpus(isolated)).as(crigate.process().logTail()).isEqualTo("1");
    assertThat(pods.allowedCpus(shared)).isEqualTo("0");
  }

  @Test
  void unlimitedBurstableAtPackageLevelSpansTheSocketWhereAnUnannotatedOneStaysInItsDie() {
    // this host's two CPUs as two dies of its one package: now the levels differ
    serve("topology-aware", HostSysfs.copyOfThisHost(work.resolve("sys")).dies("0", "1"));

    // nri-plugins' example, container C2 confined to its package
    String package_ = pods.startShell("C2", Map.of("cpu", "100m"), Map.of(),
        Map.of("unlimited-burstable.resource-policy.nri.io/container.C2", "package")).containerId();
    String criRm = pods.startShell("C3", Map.of("cpu", "100m"), Map.of(),
        Map.of("unlimited-burstable.cri-resource-manager.intel.com/container.C3", "package")).containerId();
    String plain = pods.startShell("plain", Map.of("cpu", "100m"), Map.of());
    String die = pods.startShell("C4", Map.of("cpu", "100m"), Map.of(),
        Map.of("unlimited-burstable.resource-policy.nri.io/container.C4", "die")).containerId();

    assertThat(pods.allowedCpus(package_)).as(crigate.process().logTail()).isEqualTo("0-1");
    assertThat(pods.allowedCpus(criRm)).isEqualTo("0-1");
    assertThat(pods.allowedCpus(plain)).isIn("0", "1");
    assertThat(pods.allowedCpus(die)).isIn("0", "1");
  }
}
