package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CRI Resource Manager's README configuration for the static policy, given to {@code crigate serve
 * --config} as the README writes it, against the real containerd. One CPU reserved, chosen as the
 * kubelet chooses it, is CPU 0 of this two-CPU machine: a Guaranteed one-CPU container gets CPU 1
 * alone and a Burstable one runs on the reserved CPU that remains in the shared pool.
 */
class CriRmReadmeConfigIT {

  static final Infra infra = Infra.fromEnvironment();

  /** CRI Resource Manager's README, "Running the relay with policies enabled", verbatim. */
  static final String README_STATIC = """
      policy:
        ReservedResources:
          CPU: 1
        Active: static
      """;

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA()).withConfig(README_STATIC);

  @RegisterExtension
  final PolicyPods pods = new PolicyPods(crigate, infra);

  @Test
  void theReadmesStaticConfigurationPinsAGuaranteedContainerBesideOneReservedCpu() {
    String guaranteed = pods.startShell("guaranteed", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"));
    String burstable = pods.startShell("burstable", Map.of("cpu", "100m"), Map.of());

    assertThat(pods.allowedCpus(guaranteed)).isEqualTo("1");
    assertThat(pods.allowedCpus(burstable)).isEqualTo("0");
  }
}
