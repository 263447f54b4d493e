package io.crigate.policy;

import static io.crigate.policy.BalloonsPolicyTest.config;
import static io.crigate.policy.BalloonsPolicyTest.cpus;
import static io.crigate.policy.BalloonsPolicyTest.pod;
import static io.crigate.policy.BalloonsPolicyTest.policy;
import static io.crigate.policy.BalloonsPolicyTest.run;
import static io.crigate.policy.StaticPolicyTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The nri-plugins balloons keys beyond the basic ones: each one's effect, on the fixtures. */
class BalloonsFeaturesTest {

  @Test
  void minBalloonsExistWithoutContainersAndOutliveTheirLastContainer() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: fast, namespaces: [fast], minBalloons: 2, minCPUs: 2, preferNewBalloons: true}]");
    assertThat(policy.balloonCpus()).containsKeys("fast[0]", "fast[1]");
    assertThat(policy.balloonCpus().get("fast[0]").size()).isEqualTo(2);
    assertThat(policy.balloonCpus().get("fast[1]").size()).isEqualTo(2);

    PodContext a = pod("a", "fast", Map.of());
    run(policy, a, "app", 500);
    // preferNewBalloons: a new balloon while CPUs allow, even with empty pre-created ones; the two stay when it leaves
    assertThat(policy.memberships()).containsValue("fast[2]");
    policy.removeContainer(a, container("a", "app", 500));
    assertThat(policy.balloonCpus()).containsKeys("fast[0]", "fast[1]").doesNotContainKey("fast[2]");
  }

  @Test
  void containersFillMinBalloonsBeforeNewOnesAreMade() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0", "balloonTypes: [{name: t, namespaces: [x], minBalloons: 1, minCPUs: 1}]");
    CpuSet precreated = policy.balloonCpus().get("t[0]");
    PluginResult placed = policy.createContainer(pod("p", "x", Map.of()), container("p", "app", 800));
    assertThat(policy.memberships()).containsValue("t[0]");
    assertThat(cpus(placed)).isEqualTo(precreated.toString());
  }

  /** minCPUs 0 (the default): a pre-created balloon holds no CPU until a container arrives, and none again after it leaves. */
  @Test
  void aPrecreatedBalloonWithoutMinCpusHoldsNoCpuWhileItHasNoContainer() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0", "balloonTypes: [{name: t, namespaces: [x], minBalloons: 1}]");
    assertThat(policy.balloonCpus()).containsEntry("t[0]", CpuSet.EMPTY).containsEntry("default", CpuSet.parse("1-15"));

    PodContext p = pod("p", "x", Map.of());
    PluginResult placed = policy.createContainer(p, container("p", "app", 0)); // BestEffort: requests nothing, runs on one CPU
    assertThat(policy.memberships()).containsValue("t[0]");
    assertThat(policy.balloonCpus().get("t[0]").size()).isEqualTo(1);
    assertThat(cpus(placed)).isEqualTo(policy.balloonCpus().get("t[0]").toString());

    policy.removeContainer(p, container("p", "app", 0));
    assertThat(policy.balloonCpus()).containsEntry("t[0]", CpuSet.EMPTY).containsEntry("default", CpuSet.parse("1-15"));
  }

  @Test
  void minBalloonsThatDoNotFitAreAConfigurationErrorNamingTheField() {
    // 3 usable CPUs (reserved 0): two balloons of 2 do not fit
    assertThatThrownBy(() -> policy("1-socket-4-core-nosmt", "0",
        "balloonTypes: [{name: a}, {name: b, minBalloons: 2, minCPUs: 2}]"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("policy.balloons.balloonTypes[1].minBalloons: 2 balloons of type b need 2 CPUs each; 1 CPUs are left");
  }

  @Test
  void maxBalloonsCapsHowManyExistAndTheRefusalSaysSo() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: t, namespaces: [x], maxBalloons: 2, maxCPUs: 2, preferNewBalloons: true}]");
    runPods(policy, 1000, "a:x", "b:x", "c:x"); // no third balloon: c joins one of the two
    assertThat(policy.balloonCpus().keySet()).filteredOn(n -> n.startsWith("t[")).containsExactly("t[0]", "t[1]");
    runPods(policy, 1000, "d:x");
    assertThatThrownBy(() -> policy.createContainer(pod("e", "x", Map.of()), container("e", "app", 1000)))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("(and it has maxBalloons 2 already)");
  }

  @Test
  void preferPerNamespaceBalloonKeepsANamespaceTogetherAndOthersApart() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: t, namespaces: ['team-*'], maxCPUs: 4, preferPerNamespaceBalloon: true}]");
    runPods(policy, 500, "a1:team-a", "b1:team-b", "a2:team-a");
    assertThat(policy.memberships()).containsEntry(container("a1", "app", 0).key(), "t[0]")
        .containsEntry(container("b1", "app", 0).key(), "t[1]")
        .containsEntry(container("a2", "app", 0).key(), "t[0]");

    // without the key, the second namespace joins the first balloon, which has room
    BalloonsPolicy plain = policy("2-socket-16-cpu-smt", "0", "balloonTypes: [{name: t, namespaces: ['team-*'], maxCPUs: 4}]");
    runPods(plain, 500, "a1:team-a", "b1:team-b");
    assertThat(plain.memberships().values()).containsOnly("t[0]");
  }

  @Test
  void preferPerNamespaceBalloonTakesAnEmptyPrecreatedBalloonForANewNamespace() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: t, namespaces: ['team-*'], minBalloons: 2, preferPerNamespaceBalloon: true}]");
    runPods(policy, 500, "a1:team-a", "b1:team-b");
    assertThat(policy.memberships().values()).containsExactly("t[0]", "t[1]");
    assertThat(policy.balloonCpus()).doesNotContainKey("t[2]");
  }

  /** Runs one container {@code app} requesting {@code milli} in each pod, given as {@code <pod id>:<namespace>}. */
  static void runPods(BalloonsPolicy policy, long milli, String... pods) {
    for (String pod : pods) {
      String[] idAndNamespace = pod.split(":");
      run(policy, pod(idAndNamespace[0], idAndNamespace[1], Map.of()), "app", milli);
    }
  }

  record Share(String level, String cpus) {}

  /**
   * 2-socket-16-cpu-smt: socket 0 = node 0 = 0-3,8-11, siblings i and i+8; reserved 0 is never shared.
   * The balloon is core {1,9}; every other CPU is idle.
   */
  static Stream<Share> shares() {
    return Stream.of(
        new Share("core", "1,9"),          // both threads of its core are its own already
        new Share("numa", "1-3,8-11"),
        new Share("die", "1-3,8-11"),      // no die level: a die is the socket
        new Share("package", "1-3,8-11"),
        new Share("system", "1-15"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shares")
  void shareIdleCpusInSameAddsTheIdleCpusOfThatLevel(Share share) {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: t, namespaces: [x], shareIdleCPUsInSame: %s}]".formatted(share.level()));
    PluginResult placed = policy.createContainer(pod("p", "x", Map.of()), container("p", "app", 1500));
    assertThat(policy.balloonCpus().get("t[0]")).as("its own CPUs").hasToString("1,9");
    assertThat(cpus(placed)).as("what its containers run on").isEqualTo(share.cpus());
  }

  @Test
  void sharedIdleCpusShrinkWhenAnotherBalloonTakesThemAndItsContainersAreUpdated() {
    String types = """
        balloonTypes:
          - {name: t, namespaces: [x], shareIdleCPUsInSame: numa}
          - {name: u, namespaces: [y]}
        """;
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0", types);
    String id = run(policy, pod("p", "x", Map.of()), "app", 1500);
    PluginResult other = policy.createContainer(pod("q", "y", Map.of()), container("q", "app", 1500));
    CpuSet theirs = CpuSet.parse(cpus(other));
    assertThat(other.updates()).filteredOn(u -> u.containerId().equals(id)).singleElement()
        .satisfies(u -> assertThat(CpuSet.parse(u.resources().cpusetCpus().orElseThrow()).intersects(theirs)).isFalse());
  }

  @Test
  void preferIsolCpusTakesIsolatedCpusFirstAndOthersNever() {
    String types = """
        balloonTypes:
          - {name: rt, namespaces: [rt], preferIsolCpus: true}
          - {name: plain, namespaces: [plain]}
        """;
    BalloonsPolicy policy = policy("1-socket-8-core-isolated-6-7", "0", types);
    assertThat(cpus(policy.createContainer(pod("a", "rt", Map.of()), container("a", "app", 2000)))).isEqualTo("6-7");
    // the isolated CPUs are taken; a bigger balloon of the type goes on with ordinary CPUs
    assertThat(CpuSet.parse(cpus(policy.createContainer(pod("b", "rt", Map.of()), container("b", "app", 1000))))
        .containsAll(CpuSet.parse("6-7"))).isTrue();
    assertThat(policy.balloonCpus().get("rt[0]").size()).isEqualTo(3);
    BalloonsPolicy other = policy("1-socket-8-core-isolated-6-7", "0", types);
    assertThat(CpuSet.parse(cpus(other.createContainer(pod("c", "plain", Map.of()), container("c", "app", 5000))))
        .intersects(CpuSet.parse("6-7"))).isFalse();
  }

  @Test
  void allocatorTopologyBalancingSpreadsNewBalloonsOverNodes() {
    String types = "balloonTypes: [{name: t, namespaces: [x], preferNewBalloons: true}]";
    BalloonsPolicy packed = policy("2-socket-16-cpu-smt", "0", types);
    BalloonsPolicy balanced = policy("2-socket-16-cpu-smt", "0", "allocatorTopologyBalancing: true\n" + types);
    CpuTopology topology = Fixtures.topology("2-socket-16-cpu-smt");
    for (BalloonsPolicy policy : new BalloonsPolicy[] {packed, balanced}) {
      run(policy, pod("a", "x", Map.of()), "app", 2000);
      run(policy, pod("b", "x", Map.of()), "app", 2000);
    }
    assertThat(topology.nodesOf(packed.balloonCpus().get("t[0]").union(packed.balloonCpus().get("t[1]")))).hasToString("0");
    // node 1 has 8 free CPUs, node 0 only 7 (0 is reserved): the first goes to node 1, the second to node 0
    assertThat(topology.nodesOf(balanced.balloonCpus().get("t[0]"))).hasToString("1");
    assertThat(topology.nodesOf(balanced.balloonCpus().get("t[1]"))).hasToString("0");
  }

  @Test
  void cpuClassesAreWrittenToCpufreqAndCpusLeavingGoBackToTheIdleClass(@TempDir Path sysfs) throws IOException {
    CpuTopology topology = Fixtures.topology("1-socket-4-core-nosmt");
    for (int cpu = 0; cpu < 4; cpu++) {
      Path dir = Files.createDirectories(sysfs.resolve("devices/system/cpu/cpu" + cpu + "/cpufreq"));
      Files.writeString(dir.resolve("cpuinfo_min_freq"), "800000");
      Files.writeString(dir.resolve("cpuinfo_max_freq"), "3600000");
      Files.writeString(dir.resolve("scaling_min_freq"), "800000");
      Files.writeString(dir.resolve("scaling_max_freq"), "3600000");
    }
    String yaml = """
        idleCPUClass: slow
        balloonTypes: [{name: turbo, namespaces: [x], cpuClass: fast}]
        control:
          cpu:
            classes:
              slow: {minFreq: 800000, maxFreq: 1200000}
              fast: {minFreq: 3000000, maxFreq: 3600000}
        """;
    BalloonsPolicy policy = new BalloonsPolicy(topology, CpuSet.parse("0"), config(yaml), new MemoryStore(), sysfs);
    assertThat(frequencies(sysfs, 2)).isEqualTo("800000-1200000"); // idle from the start
    assertThat(frequencies(sysfs, 0)).as("reserved CPUs are not the policy's to tune").isEqualTo("800000-3600000");

    PodContext p = pod("p", "x", Map.of());
    policy.createContainer(p, container("p", "app", 1000));
    int cpu = policy.balloonCpus().get("turbo[0]").stream().findFirst().orElseThrow();
    assertThat(frequencies(sysfs, cpu)).isEqualTo("3000000-3600000");

    policy.removeContainer(p, container("p", "app", 1000));
    assertThat(frequencies(sysfs, cpu)).isEqualTo("800000-1200000");
  }

  static String frequencies(Path sysfs, int cpu) throws IOException {
    Path dir = sysfs.resolve("devices/system/cpu/cpu" + cpu + "/cpufreq");
    return Files.readString(dir.resolve("scaling_min_freq")) + "-" + Files.readString(dir.resolve("scaling_max_freq"));
  }

  @Test
  void badNewKeysAreRejectedNamingTheField() {
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, minBalloons: 3, maxBalloons: 2}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0]: minBalloons 3 is more than maxBalloons 2");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, shareIdleCPUsInSame: rack}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].shareIdleCPUsInSame: 'rack' is not a topology level (system, package, die, numa, core)");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, cpuClass: turbo}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].cpuClass: CPU class 'turbo' is not defined in policy.balloons.control.cpu.classes");
    assertThatThrownBy(() -> config("control: {cpu: {classes: {x: {minFreq: 3000000, maxFreq: 1000000}}}}"))
        .hasMessageContaining("policy.balloons.control.cpu.classes.x: minFreq 3000000 kHz is more than maxFreq 1000000 kHz");
    assertThatThrownBy(() -> config("control: {cpu: {classes: {x: {turboPriority: 1}}}}"))
        .hasMessageContaining("policy.balloons.control.cpu.classes.x.turboPriority is not a known setting");
    assertThatThrownBy(() -> config("idleCPUClass: idle"))
        .hasMessageContaining("policy.balloons.idleCPUClass: CPU class 'idle' is not defined");
    assertThatThrownBy(() -> config("allocatorTopologyBalancing: yes-please"))
        .hasMessageContaining("policy.balloons.allocatorTopologyBalancing: 'yes-please' is not true or false");
  }
}
