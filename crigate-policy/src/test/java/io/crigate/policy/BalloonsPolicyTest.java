package io.crigate.policy;

import static io.crigate.policy.StaticPolicyTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceRequirements;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BalloonsPolicyTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final List<String> FIXTURES = List.of("1-socket-4-core-nosmt", "2-socket-16-cpu-smt", "2-socket-4-node-32-cpu-smt",
      "1-socket-8-core-isolated-6-7", "2-socket-16-cpu-smt-offline-3-11", "1-socket-hybrid-4p-smt-8e");
  /** One type for namespaces team-*, 1 to 3 CPUs per balloon. */
  static final String TEAM = """
      balloonTypes:
        - name: team
          namespaces: ["team-*"]
          minCPUs: 1
          maxCPUs: 3
      """;

  static BalloonsConfig config(String yaml) {
    try {
      return BalloonsConfig.read(YAML.readTree(yaml));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static BalloonsPolicy policy(String fixture, String reserved, String yaml) {
    return policy(fixture, reserved, yaml, new MemoryStore());
  }

  /** The fixture's topology, core types and devices; no CPU class is configured here, so its sysfs is never written. */
  static BalloonsPolicy policy(String fixture, String reserved, String yaml, DurableStore store) {
    return new BalloonsPolicy(Fixtures.topology(fixture), CpuSet.parse(reserved), config(yaml), store, Fixtures.root(fixture));
  }

  static PodContext pod(String id, String namespace, Map<String, String> annotations) {
    return new PodContext(id, id, namespace, "uid-" + id, QosClass.BURSTABLE, Map.of(), annotations, "", "",
        ResourceRequirements.NONE, Map.of());
  }

  /** Creates and starts a container as crigate's proxy does; returns its runtime id. */
  static String run(BalloonsPolicy policy, PodContext pod, String name, long milli) {
    ContainerContext c = container(pod.id(), name, milli);
    LinuxResources cpus = policy.createContainer(pod, c).adjustment().resources();
    policy.postCreateContainer(pod, c.withId("c-" + pod.id() + "-" + name).withResources(cpus));
    return "c-" + pod.id() + "-" + name;
  }

  static String cpus(PluginResult result) {
    return result.adjustment().resources().cpusetCpus().orElseThrow();
  }

  record Case(String name, String fixture, String namespace, Map<String, String> annotations, long milli, String balloon,
      String cpus, String mems) {}

  static Stream<Case> cases() {
    String ann = BalloonsPolicy.ANNOTATION;
    return Stream.of(
        // reserved 0; team-a matches team-*: 1500m needs 2 CPUs, whole cores 1 and 2
        new Case("namespace picks the type, no smt", "1-socket-4-core-nosmt", "team-a", Map.of(), 1500, "team[0]", "1-2", "0"),
        // socket 0 is the tightest fit; core {1,9} is the first whole free core (0 is reserved)
        new Case("2 cpus are one whole core", "2-socket-16-cpu-smt", "team-a", Map.of(), 1500, "team[0]", "1,9", "0"),
        // node 0 = 0-3,16-19 is the tightest node; core {1,17}; memory follows the CPUs
        new Case("4 nodes: a core on the tightest node", "2-socket-4-node-32-cpu-smt", "team-a", Map.of(), 2000, "team[0]", "1,17", "0"),
        // the annotation wins over the namespace; isolated 6-7 are not used by balloons
        new Case("annotation picks the type; isolated cpus left alone", "1-socket-8-core-isolated-6-7", "other",
            Map.of(ann + "/container.app", "team"), 3000, "team[0]", "1-3", "0"),
        // CRI Resource Manager's spelling of the key picks the type the same way
        new Case("CRI-RM annotation key picks the type", "1-socket-8-core-isolated-6-7", "other",
            Map.of(BalloonsPolicy.CRI_RM_ANNOTATION + "/pod", "team"), 3000, "team[0]", "1-3", "0"),
        // 2500m = 3 CPUs: whole core {1,9}, then 8, the thread whose sibling (reserved 0) is in use; 3 and 11 are offline
        new Case("offline cpus never used", "2-socket-16-cpu-smt-offline-3-11", "team-x", Map.of(), 2500, "team[0]", "1,8-9", "0"),
        // default balloon: every CPU no balloon holds, reserved and isolated excluded
        new Case("no match: the default balloon", "1-socket-8-core-isolated-6-7", "web", Map.of(), 500, "default", "1-5", "0"),
        new Case("kube-system: the reserved balloon", "2-socket-16-cpu-smt", "kube-system", Map.of(), 100, "reserved", "0", "0"),
        new Case("annotation: reserved", "2-socket-4-node-32-cpu-smt", "web", Map.of(ann + "/pod", "reserved"), 100, "reserved", "0", "0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void places(Case c) {
    BalloonsPolicy policy = policy(c.fixture(), "0", TEAM);
    PluginResult result = policy.createContainer(pod("p", c.namespace(), c.annotations()), container("p", "app", c.milli()));
    assertThat(policy.memberships()).containsValue(c.balloon());
    assertThat(cpus(result)).isEqualTo(c.cpus());
    assertThat(result.adjustment().resources().cpusetMems()).contains(c.mems());
  }

  /** On every fixture: a balloon inflates as containers join, near its CPUs, and every member is updated. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void aBalloonGrowsAndShrinksWithItsContainersOnEveryFixture(String fixture) {
    CpuTopology topology = Fixtures.topology(fixture);
    BalloonsPolicy policy = policy(fixture, "0", TEAM, new MemoryStore());
    PodContext a = pod("a", "team-a", Map.of());
    String first = run(policy, a, "one", 500);
    CpuSet one = policy.balloonCpus().get("team[0]");
    assertThat(one.size()).isEqualTo(1);

    PodContext b = pod("b", "team-a", Map.of());
    PluginResult joined = policy.createContainer(b, container("b", "two", 800));
    CpuSet two = policy.balloonCpus().get("team[0]");
    assertThat(two.size()).isEqualTo(2);
    assertThat(two.containsAll(one)).as("the balloon keeps its CPU when it grows").isTrue();
    assertThat(topology.nodesOf(two).size()).as("grown on the same NUMA node").isEqualTo(1);
    assertThat(cpus(joined)).isEqualTo(two.toString());
    assertThat(joined.updates()).filteredOn(u -> u.containerId().equals(first))
        .singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains(two.toString()));

    PluginResult left = policy.removeContainer(b, container("b", "two", 800));
    assertThat(policy.balloonCpus().get("team[0]").size()).isEqualTo(1);
    assertThat(left.updates()).filteredOn(u -> u.containerId().equals(first)).singleElement()
        .satisfies(u -> assertThat(u.resources().cpusetCpus()).contains(policy.balloonCpus().get("team[0]").toString()));

    policy.removeContainer(a, container("a", "one", 500));
    assertThat(policy.balloonCpus()).doesNotContainKey("team[0]");
  }

  static Stream<String> fixtures() {
    return FIXTURES.stream();
  }

  @Test
  void theDefaultBalloonShrinksAndGrowsAroundBalloonsWithUpdates() {
    BalloonsPolicy policy = policy("1-socket-4-core-nosmt", "0", TEAM);
    String web = run(policy, pod("w", "web", Map.of()), "web", 200);
    assertThat(policy.balloonCpus().get("default")).hasToString("1-3");

    PluginResult team = policy.createContainer(pod("t", "team-a", Map.of()), container("t", "app", 2000));
    assertThat(cpus(team)).isEqualTo("1-2");
    assertThat(team.updates()).containsExactly(new ContainerUpdate(web,
        LinuxResources.builder().cpusetCpus("3").cpusetMems("0").build(), true));

    PluginResult gone = policy.removeContainer(pod("t", "team-a", Map.of()), container("t", "app", 2000));
    assertThat(gone.updates()).singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains("1-3"));
  }

  @Test
  void theDefaultBalloonFallsBackToTheReservedCpusWhenBalloonsHoldTheRest() {
    BalloonsPolicy policy = policy("1-socket-4-core-nosmt", "0", TEAM);
    policy.createContainer(pod("t", "team-a", Map.of()), container("t", "app", 3000));
    assertThat(policy.balloonCpus()).containsEntry("team[0]", CpuSet.parse("1-3")).containsEntry("default", CpuSet.parse("0"));
  }

  @Test
  void withoutReservedCpusABalloonLeavesTheDefaultBalloonOneCpuWhileItHasContainers() {
    String wide = "balloonTypes: [{name: team, namespaces: [team-a]}]";
    BalloonsPolicy policy = policy("1-socket-4-core-nosmt", "", wide);
    run(policy, pod("w", "web", Map.of()), "web", 100);
    assertThatThrownBy(() -> policy.createContainer(pod("t", "team-a", Map.of()), container("t", "app", 4000)))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("no balloon of type team can take 4000 mCPU more and 3 free CPUs cannot make a new one");
    policy.createContainer(pod("t", "team-a", Map.of()), container("t", "app", 3000));
    assertThat(policy.balloonCpus()).containsEntry("default", CpuSet.parse("3"));
  }

  @Test
  void maxCpusCapsABalloonAndTheNextContainerGetsANewOne() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0", TEAM);
    run(policy, pod("a", "team-a", Map.of()), "app", 2000);
    run(policy, pod("b", "team-a", Map.of()), "app", 1500); // 3500 > 3 CPUs
    assertThat(policy.memberships()).containsValues("team[0]", "team[1]");
    assertThatThrownBy(() -> policy.createContainer(pod("c", "team-a", Map.of()), container("c", "app", 3500)))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("balloon type team holds at most 3 CPUs");
  }

  @Test
  void preferNewBalloonsGivesEachPodItsOwnBalloon() {
    BalloonsPolicy policy = policy("2-socket-16-cpu-smt", "0", "balloonTypes: [{name: solo, namespaces: ['*'], preferNewBalloons: true}]");
    run(policy, pod("a", "x", Map.of()), "app", 500);
    run(policy, pod("b", "x", Map.of()), "app", 500);
    assertThat(policy.memberships()).containsValues("solo[0]", "solo[1]");
    assertThat(policy.balloonCpus().get("solo[0]").intersects(policy.balloonCpus().get("solo[1]"))).isFalse();
  }

  @Test
  void aPodsContainersShareABalloonUnlessTheTypePrefersSpreadingPods() {
    BalloonsPolicy together = policy("2-socket-16-cpu-smt", "0", "balloonTypes: [{name: t, namespaces: ['*'], maxCPUs: 4}]");
    BalloonsPolicy spread = policy("2-socket-16-cpu-smt", "0",
        "balloonTypes: [{name: t, namespaces: ['*'], maxCPUs: 4, preferSpreadingPods: true}]");
    for (BalloonsPolicy policy : List.of(together, spread)) {
      PodContext pod = pod("p", "x", Map.of());
      run(policy, pod, "one", 500);
      run(policy, pod, "two", 500);
    }
    assertThat(together.memberships().values()).containsOnly("t[0]");
    assertThat(spread.memberships()).containsValues("t[0]", "t[1]");
  }

  @Test
  void anAnnotationNamingAnUnknownTypeIsRefusedNamingIt() {
    BalloonsPolicy policy = policy("1-socket-4-core-nosmt", "0", TEAM);
    assertThatThrownBy(() -> policy.createContainer(pod("p", "x", Map.of(BalloonsPolicy.ANNOTATION, "tema")), container("p", "app", 100)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("names balloon type 'tema', which is not configured (types: reserved, default, team)");
  }

  @Test
  void higherAllocatorPriorityGetsCpusFirstWhenEverythingIsPlacedAgain() {
    // 3 free CPUs; each type wants 2. Listed low first, high still wins on synchronize.
    String types = """
        balloonTypes:
          - {name: low, namespaces: [low], allocatorPriority: low}
          - {name: high, namespaces: [high], allocatorPriority: 0}
        """;
    BalloonsPolicy policy = policy("1-socket-4-core-nosmt", "0", types);
    PodContext low = pod("l", "low", Map.of()).withId("l");
    PodContext high = pod("h", "high", Map.of()).withId("h");
    policy.synchronize(List.of(low, high), List.of(container("l", "app", 2000).withId("c-l"), container("h", "app", 2000).withId("c-h")));
    assertThat(policy.memberships().values()).containsOnly("high[0]");
  }

  @Test
  void balloonsSurviveARestartWithoutRepinningAndDeadContainersShrinkThem() {
    MemoryStore store = new MemoryStore();
    CpuTopology topology = Fixtures.topology("2-socket-16-cpu-smt");
    BalloonsPolicy first = policy("2-socket-16-cpu-smt", "0", TEAM, store);
    PodContext a = pod("a", "team-a", Map.of());
    PodContext b = pod("b", "team-a", Map.of());
    first.createContainer(a, container("a", "app", 1000));
    first.createContainer(b, container("b", "app", 1000));
    CpuSet both = first.balloonCpus().get("team[0]");
    assertThat(both.size()).isEqualTo(2);

    BalloonsPolicy second = policy("2-socket-16-cpu-smt", "0", TEAM, store);
    List<ContainerUpdate> updates = second.synchronize(List.of(a, b), List.of(
        container("a", "app", 1000).withId("c-a").withResources(LinuxResources.builder().cpusetCpus(both.toString()).build()),
        container("b", "app", 1000).withId("c-b").withResources(LinuxResources.builder().cpusetCpus(both.toString()).build())));
    assertThat(updates).isEmpty(); // never re-pinned without cause
    assertThat(second.balloonCpus()).containsEntry("team[0]", both);

    // b died while crigate was down: the balloon deflates and a is updated to the CPU that stays
    BalloonsPolicy third = policy("2-socket-16-cpu-smt", "0", TEAM, store);
    List<ContainerUpdate> shrunk = third.synchronize(List.of(a), List.of(
        container("a", "app", 1000).withId("c-a").withResources(LinuxResources.builder().cpusetCpus(both.toString()).build())));
    CpuSet kept = third.balloonCpus().get("team[0]");
    assertThat(kept.size()).isEqualTo(1);
    assertThat(both.containsAll(kept)).isTrue();
    assertThat(shrunk).singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains(kept.toString()));
    assertThat(third.memberships()).containsOnlyKeys(container("a", "app", 1000).key());
  }

  @Test
  void aBalloonWhoseTypeIsNoLongerConfiguredIsForgottenAtStartAndItsMembersPlacedAgain() throws Exception {
    MemoryStore store = new MemoryStore();
    PodContext a = pod("a", "team-a", Map.of());
    BalloonsPolicy first = policy("2-socket-16-cpu-smt", "0", TEAM, store);
    first.createContainer(a, container("a", "app", 1000));
    CpuSet teamCpus = first.balloonCpus().get("team[0]");

    String renamed = TEAM.replace("name: team", "name: crew");
    BalloonsPolicy[] second = new BalloonsPolicy[1];
    assertThat(LogLines.of(StoredCpus.class, () -> second[0] = policy("2-socket-16-cpu-smt", "0", renamed, store)))
        .containsExactly("balloons policy: balloon team[0] loses CPUs " + teamCpus + ", its type is no longer configured");
    assertThat(second[0].balloonCpus()).doesNotContainKey("team[0]");
    assertThat(store.entries().keySet()).noneMatch(key -> key.contains("team["));

    second[0].synchronize(List.of(a), List.of(container("a", "app", 1000).withId("c-a")
        .withResources(LinuxResources.builder().cpusetCpus(teamCpus.toString()).build())));
    assertThat(second[0].memberships().get(container("a", "app", 1000).key())).startsWith("crew[");
  }

  @Test
  void badBalloonConfigurationIsRejectedNamingTheField() {
    assertThatThrownBy(() -> config("balloonTypes: [{name: default}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].name: 'default' is a built-in balloon");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, minCPUs: 4, maxCPUs: 2}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0]: minCPUs 4 is more than maxCPUs 2");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, minCpus: 1}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].minCpus is not a known setting");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, allocatorPriority: urgent}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].allocatorPriority: 'urgent' is not a priority");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a}, {name: a}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[1].name: 'a' is defined twice");
    assertThatThrownBy(() -> config("balloonTypes: [{name: a, maxCPUs: -1}]"))
        .hasMessageContaining("policy.balloons.balloonTypes[0].maxCPUs: '-1' is not a number of CPUs");
  }

  /**
   * Properties, over random create/remove sequences on every fixture, with and without reserved
   * CPUs, with every balloon type key: no CPU is in two balloons, reserved CPUs are never in a
   * configured balloon nor shared with one, no balloon with containers is empty, the default
   * balloon always has CPUs while it has containers (with reserved CPUs: always), pre-created
   * balloons stay (small's without CPUs while empty: minCPUs 0), and every running container was told (at create or by an update) exactly the
   * CPUs its balloon gives it now: no update is missed.
   */
  @Test
  void noCpuTwiceReservedNeverGivenNoBalloonWithContainersEmptyAndNoUpdateMissed() {
    String types = """
        balloonTypes:
          - {name: small, namespaces: [small], maxCPUs: 2, minBalloons: 1, shareIdleCPUsInSame: numa}
          - {name: big, namespaces: [big], minCPUs: 2, preferNewBalloons: true, maxBalloons: 3, preferCoreType: performance,
             preferCloseToDevices: [/sys/class/net/eth0]}
          - {name: spread, namespaces: [spread], maxCPUs: 3, preferSpreadingPods: true, preferIsolCpus: true,
             preferSpreadOnPhysicalCores: true}
          - {name: ns, namespaces: ['team-*'], maxCPUs: 2, preferPerNamespaceBalloon: true, shareIdleCPUsInSame: core,
             preferCoreType: efficient, allocatorTopologyBalancing: true}
        """;
    List<String> namespaces = List.of("small", "big", "spread", "web", "kube-system", "team-a", "team-b", "team-c");
    Random random = new Random(11);
    for (String fixture : FIXTURES) {
      for (String reserved : List.of("0", "")) {
        BalloonsPolicy policy = policy(fixture, reserved, types);
        List<PodContext> pods = new ArrayList<>();
        List<ContainerContext> live = new ArrayList<>();
        Map<String, String> told = new java.util.HashMap<>(); // container id -> the CPUs it was last given
        for (int step = 0; step < 300; step++) {
          if (!live.isEmpty() && random.nextInt(3) == 0) {
            ContainerContext victim = live.remove(random.nextInt(live.size()));
            told.remove(victim.id());
            apply(told, policy.removeContainer(pods.stream().filter(p -> p.id().equals(victim.podId())).findFirst().orElseThrow(), victim));
          } else {
            PodContext pod = !pods.isEmpty() && random.nextBoolean() ? pods.get(random.nextInt(pods.size()))
                : pod("p" + step, namespaces.get(random.nextInt(namespaces.size())), Map.of());
            ContainerContext c = container(pod.id(), "c" + step, 250L * random.nextInt(9));
            try {
              PluginResult created = policy.createContainer(pod, c);
              ContainerContext withId = c.withId("id-" + step).withResources(created.adjustment().resources());
              told.put(withId.id(), cpus(created));
              apply(told, created);
              apply(told, policy.postCreateContainer(pod, withId));
              live.add(withId);
              if (!pods.contains(pod)) {
                pods.add(pod);
              }
            } catch (CrigateException.FailedPrecondition full) {
              // a full node refuses; the invariants below must still hold
            }
          }
          String at = "%s reserved '%s' step %d: %s".formatted(fixture, reserved, step, policy.balloonCpus());
          for (ContainerContext c : live) {
            PodContext pod = pods.stream().filter(p -> p.id().equals(c.podId())).findFirst().orElseThrow();
            String now = policy.updateContainerResources(pod, c, LinuxResources.NONE).adjustment().resources().cpusetCpus().orElseThrow();
            assertThat(told.get(c.id())).as("what %s was told at %s", c.key(), at).isEqualTo(now);
            String balloon = policy.memberships().get(c.key());
            if (!balloon.equals("reserved") && !(balloon.equals("default") && policy.balloonCpus().get("default").equals(CpuSet.parse(reserved)))) {
              assertThat(CpuSet.parse(now).intersects(CpuSet.parse(reserved))).as("reserved shared with %s at %s", balloon, at).isFalse();
            }
          }
          assertThat(policy.balloonCpus().keySet()).as("minBalloons of small at " + at).anyMatch(name -> name.startsWith("small["));
          policy.balloonCpus().forEach((name, cpus) -> {
            if (name.startsWith("small[") && !policy.memberships().containsValue(name)) {
              assertThat(cpus).as("empty %s holds CPUs at %s", name, at).isEqualTo(CpuSet.EMPTY);
            }
          });
          CpuSet seen = CpuSet.EMPTY;
          for (var balloon : policy.balloonCpus().entrySet()) {
            if (balloon.getKey().equals("reserved") || balloon.getKey().equals("default")) {
              continue;
            }
            assertThat(seen.intersects(balloon.getValue())).as("CPU in two balloons at " + at).isFalse();
            assertThat(balloon.getValue().intersects(CpuSet.parse(reserved))).as("reserved handed out at " + at).isFalse();
            seen = seen.union(balloon.getValue());
          }
          for (String balloon : policy.memberships().values()) {
            assertThat(policy.balloonCpus().get(balloon).isEmpty()).as(balloon + " empty with containers at " + at).isFalse();
          }
          if (!reserved.isEmpty()) {
            assertThat(policy.balloonCpus().get("default").isEmpty()).as("default empty at " + at).isFalse();
          }
        }
      }
    }
  }

  private static void apply(Map<String, String> told, PluginResult result) {
    result.updates().forEach(u -> told.computeIfPresent(u.containerId(), (id, old) -> u.resources().cpusetCpus().orElseThrow()));
  }
}
