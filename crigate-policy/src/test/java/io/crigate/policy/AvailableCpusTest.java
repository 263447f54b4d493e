package io.crigate.policy;

import static io.crigate.policy.StaticPolicyTest.container;
import static io.crigate.policy.StaticPolicyTest.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.Fixtures;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code availableCpus} (CRI Resource Manager's {@code AvailableResources}): the CPUs a policy may
 * hand out at all. Every policy places inside them, and a live change moves running containers.
 */
class AvailableCpusTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** 16 CPUs on two sockets, each core's two threads n and n+8. */
  private static final String SMT = "2-socket-16-cpu-smt";

  @TempDir
  Path dir;

  private static PolicySettings read(String yaml) throws Exception {
    return PolicySettings.read(YAML.readTree(yaml), Policies.ALL.keySet(), Fixtures.topology(ActivePolicyTest.FIXTURE));
  }

  @Test
  void unsetMeansEveryOnlineCpuAndTheCpusetQualifierIsCriResourceManagers() throws Exception {
    assertThat(read("active: static").availableCpus()).isEqualTo(CpuSet.parse("0-3"));
    assertThat(read("active: static\navailableCpus: 1-3").availableCpus()).isEqualTo(CpuSet.parse("1-3"));
    assertThat(read("active: static\navailableCpus: cpuset:2-3").availableCpus()).isEqualTo(CpuSet.parse("2-3"));
  }

  @Test
  void aReservedQuantityIsTakenFromTheAvailableCpus() throws Exception {
    assertThat(read("active: static\navailableCpus: 2-3\nreservedCpus: quantity:1").reservedCpus().size()).isEqualTo(1);
    assertThat(CpuSet.parse("2-3").containsAll(
        read("active: static\navailableCpus: 2-3\nreservedCpus: quantity:1").reservedCpus())).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "availableCpus: 2-9|policy.availableCpus: 2-9 includes CPUs that are not online (online: 0-3)",
      "availableCpus: lots|policy.availableCpus: ",
      "availableCpus: 1-3\\nreservedCpus: \"0\"|policy.reservedCpus: 0 includes CPUs outside policy.availableCpus (1-3)",
      "availableCpus: 2-3\\nreservedCpus: 2-3|policy.reservedCpus: reserving every CPU (2-3) leaves none to allocate",
      "availableCpus: \"3\"\\nreservedCpus: quantity:2|policy.reservedCpus: not enough free CPUs"})
  void aBadSetIsRefusedNamingTheField(String settings, String message) {
    assertThatThrownBy(() -> read("active: static\n" + settings.replace("\\n", "\n")))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageStartingWith(message);
  }

  /** Exclusive CPUs, the shared pool and balloons all come from the available CPUs, whichever policy. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"static", "static-plus", "topology-aware", "balloons"})
  void everyPolicyPlacesInsideTheAvailableCpus(String active) throws Exception {
    CpuSet available = CpuSet.parse("2-7,10-15");
    CpuTopology topology = Fixtures.topology(SMT);
    String balloons = active.equals("balloons") ? "\nballoons: {balloonTypes: [{name: apps, namespaces: [ns]}]}" : "";
    AdjustmentPlugin policy = Policies.create(YAML.readTree(
        "active: %s\navailableCpus: cpuset:2-7,10-15\nreservedCpus: \"2\"%s".formatted(active, balloons)),
        topology, new MemoryStore());

    List<CpuSet> placed = new ArrayList<>();
    for (QosClass qos : List.of(QosClass.GUARANTEED, QosClass.BURSTABLE, QosClass.BEST_EFFORT)) {
      PodContext pod = pod(qos.name(), qos, Map.of());
      ContainerContext app = container(qos.name(), "app", qos == QosClass.BEST_EFFORT ? 0 : 2000);
      LinuxResources cpus = policy.createContainer(pod, app).adjustment().resources();
      policy.postCreateContainer(pod, app.withId("c-" + qos).withResources(cpus));
      placed.add(CpuSet.parse(cpus.cpusetCpus().orElseThrow()));
    }

    assertThat(placed).allSatisfy(cpus -> assertThat(available.containsAll(cpus)).as("%s within %s", cpus, available).isTrue());
  }

  private final List<ContainerUpdate> delivered = new ArrayList<>();

  /** {@code active} on the 4-CPU fixture with {@link ActivePolicyTest#runTwo}'s containers running; updates go to {@link #delivered}. */
  private ActivePolicy runningTwo(String active) throws Exception {
    ActivePolicy policy = new ActivePolicy(Fixtures.topology(ActivePolicyTest.FIXTURE), new MemoryStore(), updates -> {
      delivered.addAll(updates);
      return List.of();
    }, PolicyLayers.of(YAML.readTree("active: %s\nkubeletCpuManagerState: %s".formatted(active, dir.resolve("cpu_manager_state")))),
        PolicyMetrics.in(new PrometheusRegistry()));
    ActivePolicyTest.runTwo(policy);
    return policy;
  }

  /**
   * Narrowed while containers run: each is replanned inside the new set, an exclusive CPU left
   * outside it given up for one inside; none, which places nothing, widens them to the set.
   */
  @Test
  void narrowingTheAvailableCpusLiveMovesRunningContainersInside() throws Exception {
    ActivePolicy policy = runningTwo("static");

    policy.reconfigure(ConfigLayer.CLUSTER, YAML.readTree("active: static\navailableCpus: 2-3"));

    // db keeps one exclusive CPU, now 2; web shares what is left, 3
    assertThat(delivered).containsExactlyInAnyOrder(
        ContainerUpdate.of("c-db", LinuxResources.builder().cpusetCpus("2").cpusetMems("0").build()),
        ContainerUpdate.of("c-web", LinuxResources.builder().cpusetCpus("3").cpusetMems("0").build()));

    delivered.clear();
    policy.reconfigure(ConfigLayer.CLUSTER, YAML.readTree("active: none\navailableCpus: 2-3"));
    assertThat(delivered).extracting(update -> update.resources().cpusetCpus().orElseThrow()).containsOnly("2-3");
  }

  /** topology-aware keeps its grants in the store too: one outside the narrowed set is granted again inside it. */
  @Test
  void topologyAwareRegrantsAnExclusiveCpuLeftOutsideTheNarrowedSet() throws Exception {
    ActivePolicy policy = runningTwo("topology-aware");

    policy.reconfigure(ConfigLayer.CLUSTER, YAML.readTree("active: topology-aware\navailableCpus: 2-3"));

    assertThat(delivered).extracting(ContainerUpdate::containerId).containsExactlyInAnyOrder("c-db", "c-web");
    assertThat(delivered).extracting(update -> update.resources().cpusetCpus().orElseThrow())
        .containsExactlyInAnyOrder("2", "3");
  }
}
