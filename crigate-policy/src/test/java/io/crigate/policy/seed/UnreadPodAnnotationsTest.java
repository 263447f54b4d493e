package io.crigate.policy.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
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

    assertThat(UnreadPodAnnotations.of(annotations)).extracting(line -> line.substring(0, line.indexOf(": ")))
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
    assertThat(UnreadPodAnnotations.of(Map.of(
        "prefer-isolated-cpus.resource-policy.nri.io/pod", "true",
        "balloon.balloons.cri-resource-manager.intel.com/container.db", "fast",
        "prefer-shared-cpus.cri-resource-manager.intel.com/container.db", "true",
        "resources.crigate.io/containers", "{}",
        "intel.com/resources", "{}",
        "memory-type.example.com", "pmem",
        "resource-policy.nri.io/unknown", "x"))).isEmpty();
  }
}
