package io.crigate.policy;

import static io.crigate.policy.BalloonsPolicyTest.config;
import static io.crigate.policy.BalloonsPolicyTest.pod;
import static io.crigate.policy.BalloonsPolicyTest.policy;
import static io.crigate.policy.StaticPolicyTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.topology.CpuSet;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which CPUs a new balloon takes under preferSpreadOnPhysicalCores, preferCoreType and
 * preferCloseToDevices, on the fixtures (reserved CPU 0 throughout). Each case pairs with one
 * without the key (or with it off) whose CPUs differ, so a key that stops working fails its case.
 */
class BalloonsCpuPreferencesTest {

  record Case(String name, String fixture, String yaml, long milli, String cpus) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final String SMT = "2-socket-16-cpu-smt";          // socket 0 = 0-3,8-11, siblings i and i+8
  private static final String HYBRID = "1-socket-hybrid-4p-smt-8e";  // P-cores {0,1},{2,3},{4,5},{6,7}; E-cores 8-15
  private static final String NODES = "2-socket-4-node-32-cpu-smt";  // node n = 4n..4n+3 and 16+4n..; eth0 on node 3

  static Stream<Case> cases() {
    return Stream.of(
        // preferSpreadOnPhysicalCores
        new Case("packed: one whole core", SMT, "balloonTypes: [{name: t, namespaces: [x]}]", 2000, "1,9"),
        new Case("spread: one thread of two cores", SMT, "balloonTypes: [{name: t, namespaces: [x], preferSpreadOnPhysicalCores: true}]", 2000, "1-2"),
        new Case("spread: the policy-level default", SMT, "preferSpreadOnPhysicalCores: true\nballoonTypes: [{name: t, namespaces: [x]}]", 2000, "1-2"),
        new Case("spread: the type overrides the default", SMT,
            "preferSpreadOnPhysicalCores: true\nballoonTypes: [{name: t, namespaces: [x], preferSpreadOnPhysicalCores: false}]", 2000, "1,9"),
        // 4 on socket 0: cores 1-3 untouched first, then 8, whose core another (the reserved 0) uses
        new Case("spread: every core once before any twice", SMT, "balloonTypes: [{name: t, namespaces: [x], preferSpreadOnPhysicalCores: true}]", 4000, "1-3,8"),
        new Case("spread on 4 nodes: within the tightest node", NODES, "balloonTypes: [{name: t, namespaces: [x], preferSpreadOnPhysicalCores: true}]", 2000, "1-2"),
        // preferCoreType
        new Case("hybrid, no preference: the first whole core", HYBRID, "balloonTypes: [{name: t, namespaces: [x]}]", 2000, "2-3"),
        new Case("efficient cores", HYBRID, "balloonTypes: [{name: t, namespaces: [x], preferCoreType: efficient}]", 2000, "8-9"),
        // one CPU: a whole core of size 1 is an E-core; a P-core thread only when asked for
        new Case("hybrid, no preference: 1 CPU is a whole E-core", HYBRID, "balloonTypes: [{name: t, namespaces: [x]}]", 1000, "8"),
        new Case("performance cores", HYBRID, "balloonTypes: [{name: t, namespaces: [x], preferCoreType: performance}]", 1000, "1"),
        new Case("performance cores run out: efficient ones next", HYBRID, "balloonTypes: [{name: t, namespaces: [x], preferCoreType: performance}]", 10000, "1-10"),
        new Case("not a hybrid machine: no effect", SMT, "balloonTypes: [{name: t, namespaces: [x], preferCoreType: efficient}]", 2000, "1,9"),
        // preferCloseToDevices
        new Case("no device: the tightest node", NODES, "balloonTypes: [{name: t, namespaces: [x]}]", 2000, "1,17"),
        new Case("near a NIC (class/net link)", NODES, "balloonTypes: [{name: t, namespaces: [x], preferCloseToDevices: [/sys/class/net/eth0]}]", 2000, "12,28"),
        new Case("near a PCI device", NODES, "balloonTypes: [{name: t, namespaces: [x], preferCloseToDevices: ['/sys/bus/pci/devices/0000:02:01.0']}]", 2000, "8,24"),
        new Case("near a NUMA node", NODES, "balloonTypes: [{name: t, namespaces: [x], preferCloseToDevices: [/sys/devices/system/node/node1]}]", 2000, "4,20"),
        // eth0's node 3 gives all its 8, the second device's node 2 the rest
        new Case("first device first, then the next", NODES,
            "balloonTypes: [{name: t, namespaces: [x], preferCloseToDevices: [/sys/class/net/eth0, '/sys/bus/pci/devices/0000:02:01.0']}]", 10000,
            "8,12-15,24,28-31"),
        new Case("a missing device is no preference", NODES, "balloonTypes: [{name: t, namespaces: [x], preferCloseToDevices: [/sys/class/net/eth9]}]", 2000, "1,17"),
        // another type prefers node 0's disk: this one keeps away from node 0
        new Case("away from devices other types prefer", NODES,
            "balloonTypes: [{name: t, namespaces: [x]}, {name: disk, namespaces: [d], preferCloseToDevices: [/sys/class/block/nvme0n1]}]", 2000, "4,20"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aNewBalloonTakesThePreferredCpus(Case c) {
    BalloonsPolicy policy = policy(c.fixture(), "0", c.yaml());
    policy.createContainer(pod("p", "x", Map.of()), container("p", "app", c.milli()));
    assertThat(policy.balloonCpus().get("t[0]")).hasToString(c.cpus());
  }

  @Test
  void aGrowingSpreadBalloonTakesCoresItDoesNotHaveYet() {
    BalloonsPolicy policy = policy(SMT, "0", "balloonTypes: [{name: t, namespaces: [x], preferSpreadOnPhysicalCores: true}]");
    policy.createContainer(pod("a", "x", Map.of()), container("a", "app", 1000));
    assertThat(policy.balloonCpus().get("t[0]")).hasToString("1");
    policy.createContainer(pod("b", "x", Map.of()), container("b", "app", 1000));
    assertThat(policy.balloonCpus().get("t[0]")).hasToString("1-2"); // packed, it would take 9, its own core's sibling
  }

  @Test
  void badPreferenceValuesAreRejectedNamingTheField() {
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, preferCoreType: turbo}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].preferCoreType: 'turbo' is not a core type (performance, efficient)");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, preferCloseToDevices: [eth0]}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].preferCloseToDevices[0]: 'eth0' is not a sysfs device path (like /sys/class/net/eth0)");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, preferCloseToDevices: /sys/class/net/eth0}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].preferCloseToDevices must be a list of sysfs device paths");
    assertThatThrownBy(() -> config("preferSpreadOnPhysicalCores: sometimes"))
        .hasMessageContaining("policy.balloons.preferSpreadOnPhysicalCores: 'sometimes' is not true or false");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, allocatorTopologyBalancing: 1}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].allocatorTopologyBalancing: '1' is not true or false");
  }

  @Test
  void allocatorTopologyBalancingPerTypeOverridesThePolicyLevel() {
    String yaml = "allocatorTopologyBalancing: true\nballoonTypes: [{name: t, namespaces: [x], allocatorTopologyBalancing: false}]";
    BalloonsPolicy policy = policy(SMT, "0", yaml);
    policy.createContainer(pod("p", "x", Map.of()), container("p", "app", 2000));
    // balancing would pick socket 1, the roomiest (8 free against 7)
    assertThat(policy.balloonCpus().get("t[0]")).isEqualTo(CpuSet.parse("1,9"));
  }
}
