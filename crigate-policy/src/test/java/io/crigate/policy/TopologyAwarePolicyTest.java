package io.crigate.policy;

import static io.crigate.policy.StaticPolicyTest.container;
import static io.crigate.policy.StaticPolicyTest.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.policy.PoolTree.Pool;
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

class TopologyAwarePolicyTest {

  static final String FOUR_NODES = "2-socket-4-node-32-cpu-smt";
  static final String ISOLATED = "1-socket-8-core-isolated-6-7";
  static final List<String> FIXTURES = List.of("1-socket-4-core-nosmt", "2-socket-16-cpu-smt", FOUR_NODES, ISOLATED,
      "2-socket-16-cpu-smt-offline-3-11");

  static TopologyAwarePolicy policy(String fixture, String reserved) {
    return new TopologyAwarePolicy(Fixtures.topology(fixture), CpuSet.parse(reserved), new MemoryStore());
  }

  @Test
  void thePoolTreeHasSocketsAndNodesButNoLevelEqualToItsParent() {
    assertThat(PoolTree.build(Fixtures.topology(FOUR_NODES))).extracting(Pool::name)
        .containsExactly("root", "socket0", "socket0/node0", "socket0/node1", "socket1", "socket1/node2", "socket1/node3");
    // one socket, one node: the root alone
    assertThat(PoolTree.build(Fixtures.topology(ISOLATED))).extracting(Pool::name).containsExactly("root");
  }

  record Case(String name, String fixture, QosClass qos, long milli, Map<String, String> annotations,
      String pool, int exclusive, String cpus, String mems) {
    @Override
    public String toString() {
      return name; // the test's display name, which docs/migrating.md cites
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        // nodes are the smallest pools (8 CPUs); all equally free, so the first: node0, 7 CPUs free beside reserved 0
        new Case("guaranteed 2: a node", FOUR_NODES, QosClass.GUARANTEED, 2000, Map.of(), "socket0/node0", 2, null, "0"),
        // node0 has 7 CPUs free (0 reserved): node1 is the first with 8
        new Case("guaranteed 8: the first whole node", FOUR_NODES, QosClass.GUARANTEED, 8000, Map.of(), "socket0/node1", 8, "4-7,20-23", "1"),
        // no node has 12: a socket (16)
        new Case("guaranteed 12: a socket", FOUR_NODES, QosClass.GUARANTEED, 12000, Map.of(), "socket0", 12, null, null),
        // shared in the smallest pool: node0's CPUs, reserved 0 included
        new Case("burstable: a node's shared cpus", FOUR_NODES, QosClass.BURSTABLE, 500, Map.of(), "socket0/node0", 0, "0-3,16-19", "0"),
        new Case("guaranteed preferring shared", FOUR_NODES, QosClass.GUARANTEED, 2000,
            Map.of("prefer-shared-cpus.resource-policy.nri.io/container.app", "true"), "socket0/node0", 0, "0-3,16-19", "0"),
        new Case("guaranteed preferring shared, CRI-RM key", FOUR_NODES, QosClass.GUARANTEED, 2000,
            Map.of("prefer-shared-cpus.cri-resource-manager.intel.com/container.app", "true"), "socket0/node0", 0, "0-3,16-19", "0"),
        // single CPU: isolated first (6); shared never gets isolated 6-7
        new Case("guaranteed 1: isolated", ISOLATED, QosClass.GUARANTEED, 1000, Map.of(), "root", 1, "6", "0"),
        new Case("guaranteed 1 opting out of isolated", ISOLATED, QosClass.GUARANTEED, 1000,
            Map.of("prefer-isolated-cpus.resource-policy.nri.io/pod", "false"), "root", 1, "1", "0"),
        new Case("guaranteed 2 opting in to isolated", ISOLATED, QosClass.GUARANTEED, 2000,
            Map.of("prefer-isolated-cpus.resource-policy.nri.io", "true"), "root", 2, "6-7", "0"),
        // CRI Resource Manager's spellings of the same hints
        new Case("guaranteed 1 opting out of isolated, CRI-RM key", ISOLATED, QosClass.GUARANTEED, 1000,
            Map.of("prefer-isolated-cpus.cri-resource-manager.intel.com/pod", "false"), "root", 1, "1", "0"),
        new Case("guaranteed 2 opting in to isolated, CRI-RM key", ISOLATED, QosClass.GUARANTEED, 2000,
            Map.of("prefer-isolated-cpus.cri-resource-manager.intel.com", "true"), "root", 2, "6-7", "0"),
        new Case("nri-plugins' key wins over CRI-RM's", ISOLATED, QosClass.GUARANTEED, 2000,
            Map.of("prefer-isolated-cpus.cri-resource-manager.intel.com", "true", "prefer-isolated-cpus.resource-policy.nri.io", "false"),
            "root", 2, "1-2", "0"),
        new Case("besteffort: shared without isolated", ISOLATED, QosClass.BEST_EFFORT, 0, Map.of(), "root", 0, "0-5", "0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void places(Case c) {
    TopologyAwarePolicy policy = policy(c.fixture(), "0");
    ContainerContext app = container("p", "app", c.milli());
    PluginResult result = policy.createContainer(pod("p", c.qos(), c.annotations()), app);

    TopologyAwarePolicy.Grant grant = policy.grants().get(app.key());
    assertThat(grant.pool()).isEqualTo(c.pool());
    assertThat(grant.exclusive().size()).isEqualTo(c.exclusive());
    CpuSet cpus = CpuSet.parse(result.adjustment().resources().cpusetCpus().orElseThrow());
    assertThat(poolOf(c.fixture(), c.pool()).containsAll(cpus)).as("cpus %s inside pool %s", cpus, c.pool()).isTrue();
    assertThat(cpus.contains(0) && c.exclusive() > 0).as("reserved 0 given out").isFalse();
    if (c.cpus() != null) {
      assertThat(cpus).hasToString(c.cpus());
    }
    if (c.mems() != null) {
      assertThat(result.adjustment().resources().cpusetMems()).contains(c.mems());
    }
  }

  record HintCase(String name, String fixture, String reserved, QosClass qos, long request, long limit,
      Map<String, String> annotations, String pool, String cpus, String refusal) {

    @Override
    public String toString() {
      return name;
    }

    static HintCase placed(String name, String fixture, QosClass qos, long request, long limit, Map<String, String> annotations,
        String pool, String cpus) {
      return new HintCase(name, fixture, "0", qos, request, limit, annotations, pool, cpus, null);
    }
  }

  /** nri-plugins' and CRI Resource Manager's hints beyond isolated and shared, in both spellings. */
  static Stream<HintCase> hintCases() {
    String reservedNri = "prefer-reserved-cpus.resource-policy.nri.io";
    String requireNri = "require-isolated-cpus.resource-policy.nri.io";
    String unlimitedNri = "unlimited-burstable.resource-policy.nri.io";
    return Stream.of(
        // prefer-reserved-cpus: the reserved CPUs, shared, whatever the QoS class
        HintCase.placed("reserved, pod scope: a guaranteed container shares reserved 0", FOUR_NODES, QosClass.GUARANTEED, 2000, 2000,
            Map.of(reservedNri + "/pod", "true"), "reserved", "0"),
        HintCase.placed("reserved, CRI-RM key, container scope", FOUR_NODES, QosClass.BURSTABLE, 500, 500,
            Map.of("prefer-reserved-cpus.cri-resource-manager.intel.com/container.app", "true"), "reserved", "0"),
        HintCase.placed("reserved: the container's false beats the pod's true", FOUR_NODES, QosClass.BURSTABLE, 500, 500,
            Map.of(reservedNri + "/pod", "true", reservedNri + "/container.app", "false"), "socket0/node0", "0-3,16-19"),
        new HintCase("reserved without reserved CPUs: placed as if not annotated", FOUR_NODES, "", QosClass.BURSTABLE, 500, 500,
            Map.of(reservedNri, "true"), "socket0/node0", "0-3,16-19", null),
        // require-isolated-cpus: isolated CPUs or a refusal
        HintCase.placed("require isolated, 2 CPUs", ISOLATED, QosClass.GUARANTEED, 2000, 2000, Map.of(requireNri + "/pod", "true"), "root", "6-7"),
        HintCase.placed("require isolated, CRI-RM key", ISOLATED, QosClass.GUARANTEED, 1000, 1000,
            Map.of("require-isolated-cpus.cri-resource-manager.intel.com/container.app", "true"), "root", "6"),
        HintCase.placed("require isolated false: opts out like prefer false", ISOLATED, QosClass.GUARANTEED, 1000, 1000,
            Map.of(requireNri, "false"), "root", "1"),
        new HintCase("require isolated, 3 CPUs of 2 isolated: refused", ISOLATED, "0", QosClass.GUARANTEED, 3000, 3000,
            Map.of(requireNri, "true"), null, null, "has require-isolated-cpus set and asks for 3 isolated CPUs"),
        new HintCase("require isolated on a machine without isolated CPUs: refused", FOUR_NODES, "0", QosClass.GUARANTEED, 1000, 1000,
            Map.of(requireNri, "true"), null, null, "has require-isolated-cpus set and asks for 1 isolated CPUs"),
        HintCase.placed("require isolated on a shared container: no effect", ISOLATED, QosClass.BURSTABLE, 500, 500,
            Map.of(requireNri, "true"), "root", "0-5"),
        // unlimited-burstable: a Burstable container without CPU limit goes to the level asked for
        HintCase.placed("unlimited burstable, system: the root", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri + "/pod", "system"), "root", "0-31"),
        HintCase.placed("unlimited burstable, package: a socket", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri + "/container.app", "package"), "socket0", "0-7,16-23"),
        HintCase.placed("unlimited burstable, die: no die level, so the socket", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri, "die"), "socket0", "0-7,16-23"),
        HintCase.placed("unlimited burstable, numa: a node", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri, "numa"), "socket0/node0", "0-3,16-19"),
        HintCase.placed("unlimited burstable, l3cache: the NUMA level", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri, "l3cache"), "socket0/node0", "0-3,16-19"),
        HintCase.placed("unlimited burstable, CRI-RM key", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of("unlimited-burstable.cri-resource-manager.intel.com/pod", "package"), "socket0", "0-7,16-23"),
        HintCase.placed("unlimited burstable on a container with a CPU limit: no effect", FOUR_NODES, QosClass.BURSTABLE, 500, 1000,
            Map.of(unlimitedNri, "system"), "socket0/node0", "0-3,16-19"),
        HintCase.placed("unlimited burstable, a level that is none: no effect", FOUR_NODES, QosClass.BURSTABLE, 500, 0,
            Map.of(unlimitedNri, "rack"), "socket0/node0", "0-3,16-19"),
        // hints crigate has no meaning for change nothing (UnreadPodAnnotations warns)
        HintCase.placed("cpu priority and topology hints: no effect", ISOLATED, QosClass.GUARANTEED, 1000, 1000,
            Map.of("prefer-cpu-priority.resource-policy.nri.io/pod", "high", "topologyhints.resource-policy.nri.io/pod", "true"),
            "root", "6"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hintCases")
  void readsTheHints(HintCase c) {
    TopologyAwarePolicy policy = policy(c.fixture(), c.reserved());
    ContainerContext app = new ContainerContext(new ContainerKey("p", "app", 0), "", Map.of(), Map.of(), Map.of(),
        new ResourceRequirements(c.request(), c.limit(), 1 << 20, 1 << 20), LinuxResources.NONE);
    PodContext pod = pod("p", c.qos(), c.annotations());
    if (c.refusal() != null) {
      assertThatThrownBy(() -> policy.createContainer(pod, app))
          .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining(c.refusal());
      assertThat(policy.grants()).isEmpty();
      return;
    }
    PluginResult result = policy.createContainer(pod, app);
    assertThat(policy.grants().get(app.key()).pool()).isEqualTo(c.pool());
    assertThat(result.adjustment().resources().cpusetCpus()).contains(c.cpus());
  }

  @Test
  void theReservedPoolKeepsItsCpusWhileOthersAreAllocatedAndSurvivesARestart() {
    MemoryStore store = new MemoryStore();
    CpuTopology topology = Fixtures.topology(FOUR_NODES);
    TopologyAwarePolicy first = new TopologyAwarePolicy(topology, CpuSet.parse("0-1"), store);
    PodContext sys = pod("s", QosClass.BURSTABLE, Map.of("prefer-reserved-cpus.resource-policy.nri.io", "true"));
    ContainerContext agent = container("s", "agent", 500);
    first.createContainer(sys, agent);
    first.postCreateContainer(sys, agent.withId("c-agent"));

    // a whole node taken exclusively changes no reserved CPU, so the agent is not updated
    PluginResult pinned = first.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), container("g", "db", 8000));
    assertThat(pinned.updates()).isEmpty();
    assertThat(first.cpus(agent.key())).hasToString("0-1");

    TopologyAwarePolicy second = new TopologyAwarePolicy(topology, CpuSet.parse("0-1"), store);
    assertThat(second.synchronize(List.of(sys), List.of(agent.withId("c-agent")
        .withResources(LinuxResources.builder().cpusetCpus("0-1").build())))).isEmpty();
    assertThat(second.cpus(agent.key())).hasToString("0-1");
  }

  static CpuSet poolOf(String fixture, String name) {
    return PoolTree.build(Fixtures.topology(fixture)).stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow().cpus();
  }

  @Test
  void sharedContainersSpreadOverEquallySmallPools() {
    TopologyAwarePolicy policy = policy(FOUR_NODES, "0");
    ContainerContext a = container("a", "c", 6000);
    ContainerContext b = container("b", "c", 6000);
    policy.createContainer(pod("a", QosClass.BURSTABLE, Map.of()), a);
    policy.createContainer(pod("b", QosClass.BURSTABLE, Map.of()), b);
    // node0 keeps 2000 mCPU free after a; b needs 6000, so the next node
    assertThat(policy.grants().get(a.key()).pool()).isEqualTo("socket0/node0");
    assertThat(policy.grants().get(b.key()).pool()).isEqualTo("socket0/node1");
  }

  @Test
  void sharedContainersAreUpdatedWhenTheirPoolShrinksAndGrows() {
    TopologyAwarePolicy policy = policy("1-socket-4-core-nosmt", "0");
    ContainerContext web = container("b", "web", 500);
    policy.createContainer(pod("b", QosClass.BURSTABLE, Map.of()), web);
    policy.postCreateContainer(pod("b", QosClass.BURSTABLE, Map.of()), web.withId("c-web"));

    ContainerContext db = container("g", "db", 1000);
    PluginResult pinned = policy.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), db);
    assertThat(pinned.adjustment().resources().cpusetCpus()).contains("1");
    assertThat(pinned.updates()).containsExactly(
        new ContainerUpdate("c-web", LinuxResources.builder().cpusetCpus("0,2-3").cpusetMems("0").build(), true));

    PluginResult released = policy.removeContainer(pod("g", QosClass.GUARANTEED, Map.of()), db);
    assertThat(released.updates()).singleElement().satisfies(u -> assertThat(u.resources().cpusetCpus()).contains("0-3"));
  }

  @Test
  void placementsSurviveARestartAndRunningContainersAreNotRepinned() {
    MemoryStore store = new MemoryStore();
    CpuTopology topology = Fixtures.topology(FOUR_NODES);
    TopologyAwarePolicy first = new TopologyAwarePolicy(topology, CpuSet.parse("0"), store);
    ContainerContext db = container("g", "db", 8000);
    ContainerContext web = container("b", "web", 500);
    String dbCpus = first.createContainer(pod("g", QosClass.GUARANTEED, Map.of()), db).adjustment().resources().cpusetCpus().orElseThrow();
    String webCpus = first.createContainer(pod("b", QosClass.BURSTABLE, Map.of()), web).adjustment().resources().cpusetCpus().orElseThrow();

    TopologyAwarePolicy second = new TopologyAwarePolicy(topology, CpuSet.parse("0"), store);
    List<ContainerUpdate> updates = second.synchronize(
        List.of(pod("g", QosClass.GUARANTEED, Map.of()), pod("b", QosClass.BURSTABLE, Map.of())),
        List.of(db.withId("c-db").withResources(LinuxResources.builder().cpusetCpus(dbCpus).build()),
            web.withId("c-web").withResources(LinuxResources.builder().cpusetCpus(webCpus).build())));

    assertThat(updates).isEmpty();
    assertThat(second.grants()).isEqualTo(first.grants());
  }

  /** Properties, over random create/remove sequences on every fixture. */
  @Test
  void noCpuTwiceReservedNeverGivenAndSharedCpusNeverEmpty() {
    Random random = new Random(11);
    for (String fixture : FIXTURES) {
      TopologyAwarePolicy policy = policy(fixture, "0");
      Pool root = PoolTree.build(Fixtures.topology(fixture)).getFirst();
      List<ContainerContext> live = new ArrayList<>();
      for (int step = 0; step < 300; step++) {
        if (!live.isEmpty() && random.nextInt(3) == 0) {
          ContainerContext victim = live.remove(random.nextInt(live.size()));
          policy.removeContainer(pod(victim.podId(), QosClass.GUARANTEED, Map.of()), victim);
        } else {
          boolean guaranteed = random.nextBoolean();
          ContainerContext c = container("p" + step, "c", guaranteed ? 1000L * (1 + random.nextInt(4)) : 100L * random.nextInt(20));
          try {
            policy.createContainer(pod(c.podId(), guaranteed ? QosClass.GUARANTEED : QosClass.BURSTABLE, Map.of()), c);
            live.add(c);
          } catch (CrigateException.FailedPrecondition full) {
            // a full node refuses; the invariants below must still hold
          }
        }
        CpuSet seen = CpuSet.EMPTY;
        for (TopologyAwarePolicy.Grant grant : policy.grants().values()) {
          assertThat(seen.intersects(grant.exclusive())).as("%s %s given twice", fixture, grant.exclusive()).isFalse();
          assertThat(grant.exclusive().contains(0)).as("%s reserved cpu 0 given out", fixture).isFalse();
          seen = seen.union(grant.exclusive());
        }
        assertThat(policy.sharedCpus(root).isEmpty()).as("%s shared cpus empty", fixture).isFalse();
        live.forEach(c -> assertThat(policy.cpus(c.key()).isEmpty()).as("%s: %s has no cpu", fixture, c.key()).isFalse());
      }
    }
  }
}
