package io.crigate.policy;

import static io.crigate.policy.StaticPolicyTest.container;
import static io.crigate.policy.StaticPolicyTest.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.policy.seed.UnreadPodAnnotations;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.LiveConfigFile;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.testsupport.MetricValues;
import io.crigate.topology.Fixtures;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ActivePolicyTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final String FIXTURE = "1-socket-4-core-nosmt";

  @TempDir
  Path dir;
  final List<ContainerUpdate> delivered = new ArrayList<>();
  final PrometheusRegistry registry = new PrometheusRegistry();

  static JsonNode yaml(String text) throws Exception {
    return YAML.readTree(text);
  }

  ActivePolicy policy(String yaml) throws Exception {
    return new ActivePolicy(Fixtures.topology(FIXTURE), new MemoryStore(), updates -> {
      delivered.addAll(updates);
      return List.of();
    }, PolicyLayers.of(yaml(yaml + "\nkubeletCpuManagerState: " + dir.resolve("cpu_manager_state"))), PolicyMetrics.in(registry));
  }

  /** A Guaranteed 1-CPU container and a Burstable one, both created and running under {@code policy}. */
  static void runTwo(ActivePolicy policy) {
    PodContext g = pod("g", QosClass.GUARANTEED, Map.of());
    ContainerContext db = container("g", "db", 1000);
    LinuxResources dbCpus = policy.createContainer(g, db).adjustment().resources();
    policy.postCreateContainer(g, db.withId("c-db").withResources(dbCpus));
    PodContext b = pod("b", QosClass.BURSTABLE, Map.of());
    ContainerContext web = container("b", "web", 500);
    LinuxResources webCpus = policy.createContainer(b, web).adjustment().resources();
    policy.postCreateContainer(b, web.withId("c-web").withResources(webCpus));
  }

  @Test
  void seedAnnotationsCrigateDoesNotActOnAreLoggedOncePerPod() throws Exception {
    List<String> lines = LogLines.of(UnreadPodAnnotations.class, () -> {
      ActivePolicy policy = policy("active: topology-aware");
      PodContext pod = pod("p", QosClass.BURSTABLE, Map.of(
          "memory-type.cri-resource-manager.intel.com/container.db", "pmem",
          "resource-policy.nri.io/affinity", "db: [web]",
          "prefer-shared-cpus.resource-policy.nri.io/pod", "true"));
      policy.createContainer(pod, container("p", "db", 500));
      policy.createContainer(pod, container("p", "web", 500));
    });

    // two containers, one line per unread key; prefer-shared-cpus is read, so it is not named
    assertThat(lines).containsExactly(
        "pod ns/p: annotation memory-type.cri-resource-manager.intel.com/container.db: crigate has no memory tiers: "
            + "a container's memory nodes are those of its CPUs (ignored)",
        "pod ns/p: annotation resource-policy.nri.io/affinity: crigate places each container by its own request; "
            + "it keeps no affinity between containers (ignored)");
  }

  @Test
  void aPodRecoveredBySynchronizeLogsItsUnreadAnnotationsOnce() throws Exception {
    // no reserved CPUs: prefer-reserved-cpus cannot be honoured
    ActivePolicy policy = policy("active: topology-aware");
    PodContext pod = pod("p", QosClass.BURSTABLE, Map.of("prefer-reserved-cpus.cri-resource-manager.intel.com/pod", "true"));
    ContainerContext db = container("p", "db", 500).withId("c-db");
    String line = "pod ns/p: annotation prefer-reserved-cpus.cri-resource-manager.intel.com/pod: "
        + "no reserved CPUs are configured (policy.reservedCpus): the container is placed as if not annotated";

    // restart recovery: the pod and its running container come back through Synchronize alone
    assertThat(LogLines.of(UnreadPodAnnotations.class, () -> policy.synchronize(List.of(pod), List.of(db)))).containsExactly(line);
    // a second recovery pass (the NRI door reconnecting) and a new container of the pod say nothing more
    assertThat(LogLines.of(UnreadPodAnnotations.class, () -> {
      policy.synchronize(List.of(pod), List.of(db));
      policy.createContainer(pod, container("p", "web", 500));
    })).isEmpty();
  }

  @Test
  void removingAPodWhoseContainersWereNeverStoppedReleasesTheirCpus() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");
    runTwo(policy);
    PodContext g = pod("g", QosClass.GUARANTEED, Map.of());

    // StopPodSandbox and RemovePodSandbox alone, as a CRI client other than the kubelet may send them
    PluginResult stopped = policy.stopPodSandbox(g);
    policy.removePodSandbox(g);

    // db's CPU 1 returns to the shared pool, and web is told
    assertThat(stopped.updates()).singleElement().satisfies(u -> {
      assertThat(u.containerId()).isEqualTo("c-web");
      assertThat(u.resources().cpusetCpus()).contains("0-3");
    });
    PluginResult next = policy.createContainer(pod("h", QosClass.GUARANTEED, Map.of()), container("h", "db", 1000));
    assertThat(next.adjustment().resources().cpusetCpus()).contains("1");
  }

  @Test
  void theRunningPolicyItsSwitchesAndRefusedConfigurationsAreExported() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");
    assertThat(MetricValues.of(registry, "crigate_policy_active_info", "policy", "static")).isEqualTo(1);

    policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: none"));
    policy.reconfigure(ConfigLayer.FILE, yaml("active: none")); // the same policy: no switch
    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.FILE, yaml("active: balloonz")))
        .isInstanceOf(CrigateException.class);

    assertThat(MetricValues.of(registry, "crigate_policy_active_info", "policy", "none")).isEqualTo(1);
    assertThat(MetricValues.of(registry, "crigate_policy_active_info", "policy", "static")).isNull();
    assertThat(MetricValues.of(registry, "crigate_policy_switches")).isEqualTo(1);
    assertThat(MetricValues.of(registry, "crigate_policy_rejected_configurations", "layer", "file")).isEqualTo(1);
    assertThat(MetricValues.of(registry, "crigate_policy_rejected_configurations", "layer", "cluster")).isNull();
  }

  @Test
  void aPolicyBuiltAgainOnTheSameRegistryDoesNotReportTheEarlierOnesConfigMap() throws Exception {
    ActivePolicy first = policy("active: none");
    first.metrics().clusterLayerFrom(new PolicyMetrics.ClusterSource("kube-system/crigate-config.default", false));
    assertThat(MetricValues.of(registry, "crigate_policy_cluster_configmap_info",
        "configmap", "kube-system/crigate-config.default", "from", "api-server")).isEqualTo(1);

    policy("active: static\nreservedCpus: \"0\""); // as nri-plugin builds one at every Configure

    assertThat(MetricValues.of(registry, "crigate_policy_cluster_configmap_info",
        "configmap", "kube-system/crigate-config.default", "from", "api-server")).isNull();
    assertThat(MetricValues.of(registry, "crigate_policy_active_info", "policy", "static")).isEqualTo(1);
  }

  @Test
  void switchingToNoneLiveWidensEveryPinnedContainer() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");
    runTwo(policy);

    List<ContainerUpdate> failed = policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: none"));

    assertThat(failed).isEmpty();
    assertThat(policy.active()).isEqualTo("none");
    // db had 1, web had the pool 0,2-3; none gives both every CPU of the 4-CPU fixture
    assertThat(delivered).extracting(ContainerUpdate::containerId).containsExactlyInAnyOrder("c-db", "c-web");
    assertThat(delivered).allSatisfy(u -> assertThat(u.resources().cpusetCpus()).contains("0-3"));
  }

  @Test
  void switchingToBalloonsLivePutsRunningContainersInOneBalloonAndABadTypeChangesNothing() throws Exception {
    ActivePolicy policy = policy("active: none");
    runTwo(policy);

    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.FILE, yaml("active: balloons\nballoons: {balloonTypes: [{name: reserved}]}")))
        .hasMessageContaining("policy.balloons.balloonTypes[0].name: 'reserved' is a built-in balloon");
    assertThat(policy.active()).isEqualTo("none");
    assertThat(delivered).isEmpty();

    policy.reconfigure(ConfigLayer.FILE, yaml("active: balloons\nreservedCpus: \"0\"\nballoons: {balloonTypes: [{name: apps, namespaces: [ns]}]}"));
    // db (1 CPU) and web (500m) are both of namespace ns: one balloon of 2 CPUs next to reserved 0
    assertThat(policy.active()).isEqualTo("balloons");
    assertThat(delivered).extracting(ContainerUpdate::containerId).containsExactlyInAnyOrder("c-db", "c-web");
    assertThat(delivered).allSatisfy(u -> assertThat(u.resources().cpusetCpus()).contains("1-2"));
  }

  @Test
  void switchingBackToStaticPinsAgain() throws Exception {
    ActivePolicy policy = policy("active: none");
    runTwo(policy);
    assertThat(delivered).isEmpty();

    policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: static\nreservedCpus: \"0\""));

    // reserved 0 → db takes 1, the pool keeps 0,2-3
    assertThat(delivered).containsExactlyInAnyOrder(
        ContainerUpdate.of("c-db", LinuxResources.builder().cpusetCpus("1").cpusetMems("0").build()),
        ContainerUpdate.of("c-web", LinuxResources.builder().cpusetCpus("0,2-3").cpusetMems("0").build()));
  }

  @Test
  void aBadConfigurationNamesTheFieldAndThePreviousStays() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");

    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: static\nreservedCpus: \"9\"")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("policy.reservedCpus");
    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: balloonz")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("policy.active");
    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.CLUSTER, yaml("activ: none")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("policy.activ ");
    assertThatThrownBy(() -> policy.reconfigure(ConfigLayer.CLUSTER, yaml("sysfsRoot: /elsewhere")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("policy.sysfsRoot is read at start only");

    assertThat(policy.active()).isEqualTo("static");
  }

  @Test
  void aPinningPolicyIsRefusedWhileTheKubeletCpuManagerIsStatic() throws Exception {
    Files.writeString(dir.resolve("cpu_manager_state"), "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-3\",\"checksum\":1}");

    assertThatThrownBy(() -> policy("active: static"))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("--cpu-manager-policy=none").hasMessageContaining("cpu_manager_state");
    ActivePolicy none = policy("active: none");
    assertThatThrownBy(() -> none.reconfigure(ConfigLayer.CLUSTER, yaml("active: static-plus")))
        .isInstanceOf(CrigateException.FailedPrecondition.class);
    assertThat(none.active()).isEqualTo("none");
  }

  @Test
  void aKubeletStateWithPolicyNoneIsNoObstacle() throws Exception {
    Files.writeString(dir.resolve("cpu_manager_state"), "{\"policyName\":\"none\",\"defaultCpuSet\":\"\",\"checksum\":1}");

    assertThat(policy("active: static").active()).isEqualTo("static");
  }

  @Test
  void aKubeletUpdateThatWouldUndoAPolicyCpusetIsRewritten() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");
    runTwo(policy);
    PodContext g = pod("g", QosClass.GUARANTEED, Map.of());

    // the kubelet (CPU manager none) resends its own view: every CPU, and a new memory limit
    LinuxResources kubelet = LinuxResources.builder().cpusetCpus("0-3").memoryLimit(2L << 20).build();
    PluginResult result = policy.updateContainerResources(g, container("g", "db", 1000).withId("c-db"), kubelet);

    assertThat(result.adjustment().resources().cpusetCpus()).contains("1");
    assertThat(result.adjustment().resources().memoryLimit()).isEmpty(); // the rest of the kubelet's update passes
  }

  @Test
  void theFileOutranksTheClusterWhichOutranksTheSection() throws Exception {
    ActivePolicy policy = policy("active: static\nreservedCpus: \"0\"");

    policy.reconfigure(ConfigLayer.FILE, yaml("active: static-plus"));
    policy.reconfigure(ConfigLayer.CLUSTER, yaml("active: none"));
    assertThat(policy.active()).isEqualTo("static-plus");

    policy.clear(ConfigLayer.FILE);
    assertThat(policy.active()).isEqualTo("none");
    policy.clear(ConfigLayer.CLUSTER);
    assertThat(policy.active()).isEqualTo("static");
  }

  @Test
  void theLiveFileIsWatchedAndItsRemovalDropsIt() throws Exception {
    Path file = dir.resolve("policy.yaml");
    JsonNode section = yaml("active: static\nreservedCpus: \"0\"\nkubeletCpuManagerState: " + dir.resolve("absent")
        + "\nconfigFile: " + file);
    ActivePolicy policy = new ActivePolicy(Fixtures.topology(FIXTURE), new MemoryStore(), updates -> {
      delivered.addAll(updates);
      return List.of();
    }, PolicyFile.layered(file, PolicyLayers.of(section)), PolicyMetrics.in(registry));
    try (LiveConfigFile watch = PolicyFile.watch(file, policy)) {
      runTwo(policy);

      Files.writeString(file, "active: [broken");
      Files.writeString(dir.resolve("unrelated.yaml"), "active: none");
      Files.writeString(file, "active: none\n");

      await().atMost(Duration.ofSeconds(30)).until(() -> policy.active().equals("none"));
      assertThat(delivered).extracting(ContainerUpdate::containerId).containsExactlyInAnyOrder("c-db", "c-web");

      Files.delete(file);
      await().atMost(Duration.ofSeconds(30)).until(() -> policy.active().equals("static"));
    }
  }

  @Test
  void anUnreadableLiveFileIsRefusedNamingIt() throws Exception {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, "active: [broken");

    assertThatThrownBy(() -> PolicyFile.layered(file, PolicyLayers.of(yaml("active: static"))))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(file.toString());
  }
}
