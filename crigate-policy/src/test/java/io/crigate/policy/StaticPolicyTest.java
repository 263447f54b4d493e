package io.crigate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
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

class StaticPolicyTest {

  static PodContext pod(String id, QosClass qos, Map<String, String> annotations) {
    return new PodContext(id, id, "ns", "uid-" + id, qos, Map.of(), annotations, "", "", ResourceRequirements.NONE, Map.of());
  }

  static ContainerContext container(String podId, String name, long cpuMilli) {
    return new ContainerContext(new ContainerKey(podId, name, 0), "", Map.of(), Map.of(), Map.of(),
        new ResourceRequirements(cpuMilli, cpuMilli, 1 << 20, 1 << 20), LinuxResources.NONE);
  }

  static StaticPolicy policy(String fixture, String reserved, boolean plus) {
    return new StaticPolicy(plus ? "static-plus" : "static", plus, Fixtures.topology(fixture), CpuSet.parse(reserved), new MemoryStore());
  }

  record Case(String name, String fixture, String reserved, boolean plus, QosClass qos, long milli, String cpus, String mems) {}

  static Stream<Case> cases() {
    return Stream.of(
        // reserved 0: whole core {1} .. no smt: 1-2
        new Case("guaranteed 2 cpus, no smt", "1-socket-4-core-nosmt", "0", false, QosClass.GUARANTEED, 2000, "1-2", "0"),
        // core {1,9} is the first whole free core; 0 reserved, its sibling 8 stays shared
        new Case("guaranteed 2 cpus, smt: one whole core", "2-socket-16-cpu-smt", "0", false, QosClass.GUARANTEED, 2000, "1,9", "0"),
        // node 1 = 4-7,20-23 is whole and free: 8 cpus exactly
        new Case("guaranteed 8 cpus: a whole numa node, memory follows", "2-socket-4-node-32-cpu-smt", "0", false, QosClass.GUARANTEED, 8000, "4-7,20-23", "1"),
        // fractional: shared pool = everything (0-3)
        new Case("guaranteed fractional: shared", "1-socket-4-core-nosmt", "0", false, QosClass.GUARANTEED, 1500, "0-3", "0"),
        new Case("burstable: shared", "1-socket-4-core-nosmt", "0", false, QosClass.BURSTABLE, 2000, "0-3", "0"),
        // static-plus: a single CPU goes to an isolated one
        new Case("static-plus single cpu: isolated", "1-socket-8-core-isolated-6-7", "0", true, QosClass.GUARANTEED, 1000, "6", "0"),
        // static-plus shared pool excludes isolated 6-7
        new Case("static-plus burstable without annotation: shared minus isolated", "1-socket-8-core-isolated-6-7", "0", true, QosClass.BURSTABLE, 2000, "0-5", "0"),
        // offline 3,11 never appear in the pool
        new Case("offline cpus not in the pool", "2-socket-16-cpu-smt-offline-3-11", "0", false, QosClass.BEST_EFFORT, 0, "0-2,4-10,12-15", "0-1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void places(Case c) {
    StaticPolicy policy = policy(c.fixture(), c.reserved(), c.plus());
    PluginResult result = policy.createContainer(pod("p", c.qos(), Map.of()), container("p", "app", c.milli()));
    assertThat(result.adjustment().resources().cpusetCpus()).contains(c.cpus());
    assertThat(result.adjustment().resources().cpusetMems()).contains(c.mems());
  }

  @Test
  void staticPlusOptInAnnotationMakesABurstableContainerExclusive() {
    StaticPolicy policy = policy("1-socket-8-core-isolated-6-7", "0", true);
    PluginResult result = policy.createContainer(
        pod("p", QosClass.BURSTABLE, Map.of(StaticPolicy.OPT_IN_ANNOTATION + "/container.app", "true")), container("p", "app", 2000));
    assertThat(result.adjustment().resources().cpusetCpus()).contains("1-2");
  }

  record IsolatedCase(String name, boolean plus, long milli, Map<String, String> annotations, String cpus, String refusal) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** static-plus reads nri-plugins' and CRI Resource Manager's isolated-CPU hints; static reads none. */
  static Stream<IsolatedCase> isolatedCases() {
    String prefer = "prefer-isolated-cpus.resource-policy.nri.io";
    String require = "require-isolated-cpus.resource-policy.nri.io";
    return Stream.of(
        new IsolatedCase("prefer isolated, 2 cpus: both isolated", true, 2000, Map.of(prefer + "/pod", "true"), "6-7", null),
        new IsolatedCase("prefer isolated false, 1 cpu: an ordinary one", true, 1000,
            Map.of("prefer-isolated-cpus.cri-resource-manager.intel.com/container.app", "false"), "1", null),
        new IsolatedCase("prefer isolated, 3 cpus of 2 isolated: ordinary ones", true, 3000, Map.of(prefer, "true"), "1-3", null),
        new IsolatedCase("require isolated, 2 cpus", true, 2000, Map.of(require + "/container.app", "true"), "6-7", null),
        new IsolatedCase("require isolated, CRI-RM key", true, 1000,
            Map.of("require-isolated-cpus.cri-resource-manager.intel.com/pod", "true"), "6", null),
        new IsolatedCase("require isolated, 3 cpus of 2 isolated: refused", true, 3000, Map.of(require, "true"), null,
            "has require-isolated-cpus set and asks for 3 isolated CPUs, 2 are free"),
        new IsolatedCase("static reads neither", false, 2000, Map.of(require, "true", prefer, "true"), "1-2", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("isolatedCases")
  void isolatedCpuHints(IsolatedCase c) {
    StaticPolicy policy = policy("1-socket-8-core-isolated-6-7", "0", c.plus());
    PodContext pod = pod("p", QosClass.GUARANTEED, c.annotations());
    if (c.refusal() != null) {
      assertThatThrownBy(() -> policy.createContainer(pod, container("p", "app", c.milli())))
          .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining(c.refusal());
      assertThat(policy.exclusiveAllocations()).isEmpty();
      return;
    }
    assertThat(policy.createContainer(pod, container("p", "app", c.milli())).adjustment().resources().cpusetCpus()).contains(c.cpus());
  }

  @Test
  void staticPlusNeverHandsOutAReservedIsolatedCpu() {
    // 6 is isolated but reserved: the single-CPU container takes the other isolated one, 7
    StaticPolicy policy = policy("1-socket-8-core-isolated-6-7", "0,6", true);
    PluginResult result = policy.createContainer(pod("p", QosClass.GUARANTEED, Map.of()), container("p", "app", 1000));
    assertThat(result.adjustment().resources().cpusetCpus()).contains("7");
  }

  @Test
  void thePoolShrinksAndGrowsWithUpdatesToSharedContainers() {
    StaticPolicy policy = policy("1-socket-4-core-nosmt", "0", false);
    PodContext burstable = pod("b", QosClass.BURSTABLE, Map.of());
    ContainerContext shared = container("b", "web", 500);
    policy.createContainer(burstable, shared);
    policy.postCreateContainer(burstable, shared.withId("c-web").withResources(LinuxResources.builder().cpusetCpus("0-3").build()));

    PodContext guaranteed = pod("g", QosClass.GUARANTEED, Map.of());
    PluginResult pinned = policy.createContainer(guaranteed, container("g", "db", 1000));
    assertThat(pinned.adjustment().resources().cpusetCpus()).contains("1");
    assertThat(pinned.updates()).containsExactly(new ContainerUpdate("c-web",
        LinuxResources.builder().cpusetCpus("0,2-3").cpusetMems("0").build(), true));

    PluginResult released = policy.removeContainer(guaranteed, container("g", "db", 1000));
    assertThat(released.updates()).singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains("0-3"));
  }

  @Test
  void theSharedPoolIsNeverEmptied() {
    StaticPolicy policy = policy("1-socket-4-core-nosmt", "", false);
    policy.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), container("g", "a", 3000));
    assertThatThrownBy(() -> policy.createContainer(pod("h", QosClass.GUARANTEED, Map.of()), container("h", "b", 1000)))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("asks for 1 exclusive CPUs, 0 can be given");
  }

  @Test
  void allocationsSurviveARestartAndDeadContainersAreReleased() {
    MemoryStore store = new MemoryStore();
    CpuTopology topology = Fixtures.topology("2-socket-16-cpu-smt");
    StaticPolicy first = new StaticPolicy("static", false, topology, CpuSet.parse("0"), store);
    ContainerContext kept = container("g", "a", 2000);
    ContainerContext gone = container("g", "b", 2000);
    first.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), kept);
    first.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), gone);

    StaticPolicy second = new StaticPolicy("static", false, topology, CpuSet.parse("0"), store);
    List<ContainerUpdate> updates = second.synchronize(List.of(pod("g", QosClass.GUARANTEED, Map.of())),
        List.of(kept.withId("c1").withResources(LinuxResources.builder().cpusetCpus("1,9").build())));

    assertThat(updates).isEmpty(); // never re-pinned without cause
    assertThat(second.exclusiveAllocations()).containsOnlyKeys(kept.key());
    assertThat(second.sharedPool()).hasToString("0,2-8,10-15");
  }

  @Test
  void anAllocationWhoseCpusAreReservedAfterARestartIsForgottenAndTheContainerGetsOthers() throws Exception {
    MemoryStore store = new MemoryStore();
    CpuTopology topology = Fixtures.topology("2-socket-16-cpu-smt");
    ContainerContext kept = container("g", "a", 2000);
    new StaticPolicy("static", false, topology, CpuSet.parse("0"), store)
        .createContainer(pod("g", QosClass.GUARANTEED, Map.of()), kept);
    assertThat(store.entries()).containsOnlyKeys("exclusive/g/a/0");

    // the admin reserves CPU 1 while crigate is down; the container ran on 1,9
    StaticPolicy[] second = new StaticPolicy[1];
    assertThat(LogLines.of(StoredCpus.class, () -> second[0] = new StaticPolicy("static", false, topology, CpuSet.parse("0-1"), store)))
        .containsExactly("static policy: container g/a/0 loses CPUs 1,9, no longer among the usable 2-15");
    assertThat(store.entries()).isEmpty();
    assertThat(second[0].exclusiveAllocations()).isEmpty();

    List<ContainerUpdate> updates = second[0].synchronize(List.of(pod("g", QosClass.GUARANTEED, Map.of())),
        List.of(kept.withId("c1").withResources(LinuxResources.builder().cpusetCpus("1,9").build())));
    CpuSet given = second[0].exclusiveAllocations().get(kept.key());
    assertThat(given.size()).isEqualTo(2);
    assertThat(given.intersects(CpuSet.parse("0-1"))).isFalse();
    assertThat(updates).singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains(given.toString()));
  }

  /** Properties, over random create/remove sequences on every fixture. */
  @Test
  void noCpuTwiceReservedNeverGivenAndPoolNeverEmpty() {
    Random random = new Random(7);
    for (String fixture : List.of("1-socket-4-core-nosmt", "2-socket-16-cpu-smt", "2-socket-4-node-32-cpu-smt",
        "1-socket-8-core-isolated-6-7", "2-socket-16-cpu-smt-offline-3-11")) {
      for (boolean plus : new boolean[] {false, true}) {
        StaticPolicy policy = policy(fixture, "0", plus);
        List<ContainerContext> live = new ArrayList<>();
        for (int step = 0; step < 300; step++) {
          if (!live.isEmpty() && random.nextInt(3) == 0) {
            ContainerContext victim = live.remove(random.nextInt(live.size()));
            policy.removeContainer(pod(victim.podId(), QosClass.GUARANTEED, Map.of()), victim);
          } else {
            ContainerContext c = container("p" + step, "c", 1000L * (1 + random.nextInt(4)));
            try {
              policy.createContainer(pod(c.podId(), QosClass.GUARANTEED, Map.of()), c);
              live.add(c);
            } catch (CrigateException.FailedPrecondition full) {
              // a full node refuses; the invariants below must still hold
            }
          }
          CpuSet seen = CpuSet.EMPTY;
          for (CpuSet cpus : policy.exclusiveAllocations().values()) {
            assertThat(seen.intersects(cpus)).as("%s %s given twice", fixture, cpus).isFalse();
            assertThat(cpus.contains(0)).as("%s reserved cpu 0 given out", fixture).isFalse();
            seen = seen.union(cpus);
          }
          assertThat(policy.sharedPool().isEmpty()).as("%s shared pool empty", fixture).isFalse();
        }
      }
    }
  }
}
