package io.crigate.policy.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The keys of the nri-plugins migration table (CRI Resource Manager's and nri-plugins' spellings). */
class UnreadPodAnnotationsTest {

  @Test
  void bothSpellingsAndEveryScopeAreRecognised() {
    Map<String, String> annotations = Map.of(
        "memory-type.resource-policy.nri.io/pod", "dram,pmem",
        "memory-type.cri-resource-manager.intel.com/container.db", "pmem",
        "cri-resource-manager.intel.com/anti-affinity", "db: [web]",
        "resource-policy.nri.io/affinity", "db: [web]",
        "cold-start.cri-resource-manager.intel.com/container.db", "duration: 60s",
        "rdtclass.resource-policy.nri.io/pod", "gold",
        "blockioclass.cri-resource-manager.intel.com", "slow");

    assertThat(UnreadPodAnnotations.of("topology-aware", true, annotations)).extracting(line -> line.substring(0, line.indexOf(": ")))
        .containsExactly(
            "blockioclass.cri-resource-manager.intel.com",
            "cold-start.cri-resource-manager.intel.com/container.db",
            "cri-resource-manager.intel.com/anti-affinity",
            "memory-type.cri-resource-manager.intel.com/container.db",
            "memory-type.resource-policy.nri.io/pod",
            "rdtclass.resource-policy.nri.io/pod",
            "resource-policy.nri.io/affinity");
  }

  @Test
  void keysCrigateReadsAndUnrelatedKeysAreNotNamed() {
    assertThat(UnreadPodAnnotations.of("topology-aware", true, Map.of(
        "prefer-isolated-cpus.resource-policy.nri.io/pod", "true",
        "balloon.balloons.cri-resource-manager.intel.com/container.db", "fast",
        "prefer-shared-cpus.cri-resource-manager.intel.com/container.db", "true",
        "resources.crigate.io/containers", "{}",
        "intel.com/resources", "{}",
        "memory-type.example.com", "pmem",
        "resource-policy.nri.io/prefer-isolated-cpus", "true",
        "resource-policy.nri.io/unknown", "x"))).isEmpty();
  }

  /** One hint under one policy: the warning it gets, or null when crigate honours it. */
  record Case(String policy, boolean reservedCpus, String key, String value, String warning) {
    @Override
    public String toString() {
      return "%s%s: %s=%s".formatted(policy, reservedCpus ? "" : " without reserved CPUs", key, value);
    }
  }

  static Stream<Case> hints() {
    String otherPolicy = "read by the topology-aware policy only; the active policy is static (ignored)";
    String isolating = "read by the static-plus and topology-aware policies only; the active policy is balloons (ignored)";
    String noPriorities = "crigate knows no CPU priorities (Intel SST, base frequencies): exclusive CPUs are chosen by locality only (ignored)";
    String noHints = "crigate's policies take no topology hints from devices, mounts or pod resources: pools are chosen by CPU "
        + "capacity only (ignored)";
    return Stream.of(
        new Case("topology-aware", true, "prefer-reserved-cpus.resource-policy.nri.io/pod", "true", null),
        new Case("topology-aware", false, "prefer-reserved-cpus.cri-resource-manager.intel.com/container.c", "true",
            "no reserved CPUs are configured (policy.reservedCpus): the container is placed as if not annotated"),
        new Case("topology-aware", false, "prefer-reserved-cpus.resource-policy.nri.io/pod", "false", null),
        new Case("static", true, "prefer-reserved-cpus.resource-policy.nri.io/pod", "true", otherPolicy),
        new Case("static", true, "prefer-shared-cpus.cri-resource-manager.intel.com", "true", otherPolicy),
        new Case("static-plus", true, "require-isolated-cpus.resource-policy.nri.io/container.c", "true", null),
        new Case("static-plus", true, "prefer-isolated-cpus.cri-resource-manager.intel.com/pod", "true", null),
        new Case("balloons", true, "require-isolated-cpus.cri-resource-manager.intel.com", "true", isolating),
        new Case("topology-aware", true, "unlimited-burstable.resource-policy.nri.io/pod", "die", null),
        new Case("topology-aware", true, "unlimited-burstable.cri-resource-manager.intel.com/container.c", "l3cache",
            "crigate's pool tree has no L3 cache level: the NUMA node level is used"),
        new Case("topology-aware", true, "unlimited-burstable.resource-policy.nri.io", "rack",
            "'rack' is not one of system, package, die, numa, l3cache (ignored)"),
        new Case("topology-aware", true, "prefer-cpu-priority.resource-policy.nri.io/container.pump", "high", noPriorities),
        new Case("static", true, "prefer-cpu-priority.cri-resource-manager.intel.com/pod", "low", noPriorities),
        new Case("topology-aware", true, "prefer-cpu-priority.resource-policy.nri.io/pod", "none", null),
        new Case("topology-aware", true, "topologyhints.resource-policy.nri.io/pod", "false", null),
        new Case("static-plus", true, "topologyhints.cri-resource-manager.intel.com/container.c", "none", null),
        new Case("topology-aware", true, "topologyhints.resource-policy.nri.io/container.c", "devices,pod-resources", noHints),
        new Case("topology-aware", true, "topologyhints.cri-resource-manager.intel.com/pod", "true", noHints));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hints")
  void hintsAreNamedWhereTheirMeaningCannotBeHonoured(Case c) {
    var found = UnreadPodAnnotations.of(c.policy(), c.reservedCpus(), Map.of(c.key(), c.value()));
    if (c.warning() == null) {
      assertThat(found).isEmpty();
    } else {
      assertThat(found).containsExactly(c.key() + ": " + c.warning());
    }
  }
}
