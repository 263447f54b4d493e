package io.crigate.policy.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.MemoryStore;
import io.crigate.policy.PolicyPlugin;
import io.crigate.spi.adjust.PluginInitContext;
import io.crigate.testsupport.MetricValues;
import io.crigate.testsupport.MockApiShutdown;
import io.crigate.topology.Fixtures;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Precedence, live switching and rejection on fabric8's mock API server in CRUD mode, crigate's and CRI Resource Manager's ConfigMaps. */
@EnableKubernetesMockClient(crud = true)
class PolicyConfigMapsTest {

  static final String NS = "kube-system";
  static final String NODE = "node-1";
  static final String GROUP_LABEL = "crigate.io/config-group";
  static final Duration WAIT = Duration.ofSeconds(30);
  /** serve's wait for the first read of the ConfigMaps. */
  static final Duration FIRST_SYNC_WAIT = Duration.ofSeconds(10);
  static final ClusterPolicySettings SETTINGS = new ClusterPolicySettings(NS, NODE, GROUP_LABEL);

  KubernetesClient mock;
  KubernetesMockServer server;
  /** The mock's client with timeouts for a loaded CI machine (the default connect timeout is 10 s). */
  KubernetesClient client;

  @TempDir
  Path dir;
  final MemoryStore store = new MemoryStore();
  final PrometheusRegistry registry = new PrometheusRegistry();
  String section;
  ActivePolicy policy;
  PolicyConfigMaps source;

  @BeforeEach
  void setUp() throws Exception {
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(mock.getConfiguration())
        .withConnectionTimeout(120_000).withRequestTimeout(120_000).build()).build();
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
        .withLabels(Map.of(GROUP_LABEL, "fast")).endMetadata().build()).create();
    section = """
        active: none
        reservedCpus: "0"
        sysfsRoot: %s
        kubeletCpuManagerState: %s
        """.formatted(Fixtures.copyTo("1-socket-4-core-nosmt", dir.resolve("sysfs")), dir.resolve("absent"));
    policy = newPolicy();
  }

  /** The policy plugin as serve builds it from the main configuration, on this test's store. */
  ActivePolicy newPolicy() throws Exception {
    return PolicyPlugin.create(new ObjectMapper(new YAMLFactory()).readTree(section),
        new PluginInitContext("policy", null, dir, store, updates -> List.of(), Clock.systemUTC(), registry));
  }

  /**
   * What a restart leaves: the store, and a policy built again from the main configuration. The
   * API server goes first, as {@link MockApiShutdown} needs, and does not come back.
   */
  void restartWithoutTheApiServer() throws Exception {
    MockApiShutdown.stopServerThenClose(server, source, policy);
    source = null;
    policy = newPolicy();
  }

  @AfterEach
  void tearDown() throws Exception {
    MockApiShutdown.stopServerThenClose(server, source, policy, client);
  }

  void configMap(String name, String policyYaml) {
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata()
        .withData(Map.of(ConfigMapNames.DATA_KEY, policyYaml)).build()).createOr(existing -> existing.update());
  }

  void start() {
    source = PolicyConfigMaps.start(client, SETTINGS, policy, store, FIRST_SYNC_WAIT);
  }

  void awaitActive(String name) {
    await("policy " + name).atMost(WAIT).until(() -> policy.active().equals(name));
  }

  @Test
  void theMostSpecificConfigMapWinsAndChangesApplyLive() {
    configMap("crigate-config.default", "active: static");
    configMap("crigate-config.group.slow", "active: static-plus"); // another group's: never read
    start();
    // applied before start returns
    assertThat(policy.active()).isEqualTo("static");

    configMap("crigate-config.group.fast", "active: static-plus");
    awaitActive("static-plus");

    configMap("crigate-config.node." + NODE, "active: none");
    awaitActive("none");

    client.configMaps().inNamespace(NS).withName("crigate-config.node." + NODE).delete();
    awaitActive("static-plus");

    // the node moves to a group without a ConfigMap: the default applies
    client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().addToLabels(GROUP_LABEL, "slower").endMetadata().build());
    awaitActive("static");

    client.configMaps().inNamespace(NS).withName("crigate-config.default").delete();
    awaitActive("none"); // the main configuration's section again
  }

  @Test
  void anApiServerUnreachableAtTheStartIsReadWhenItComesAndItsConfigMapApplied() throws Exception {
    ApiServerLater later = new ApiServerLater();
    try {
      source = PolicyConfigMaps.start(later.client, SETTINGS, policy, store, FIRST_SYNC_WAIT);
      assertThat(policy.active()).isEqualTo("none"); // the local configuration meanwhile

      later.comesWithDefaultConfigMap("active: static");
      awaitActive("static");
    } finally {
      later.stopThenClose(source);
      source = null;
    }
  }

  @Test
  void theConfigMapLastAppliedIsResumedByARestartWithoutTheApiServerUntilItAnswers() throws Exception {
    configMap("crigate-config.default", "active: static");
    start();
    assertThat(policy.active()).isEqualTo("static");
    restartWithoutTheApiServer();
    assertThat(policy.active()).isEqualTo("none"); // the main configuration alone, before the ConfigMaps

    ApiServerLater later = new ApiServerLater();
    try {
      source = PolicyConfigMaps.start(later.client, SETTINGS, policy, store, FIRST_SYNC_WAIT);
      assertThat(policy.active()).isEqualTo("static"); // resumed, though nothing answered
      assertThat(configMapInfo("remembered")).isEqualTo(1);

      // the ConfigMap changed while the node was away: the API server's answer wins, and is remembered
      later.comesWithDefaultConfigMap("active: static-plus");
      awaitActive("static-plus");
      assertThat(configMapInfo("api-server")).isEqualTo(1);
      assertThat(configMapInfo("remembered")).isNull();
      assertThat(RememberedConfigMap.recall(store, SETTINGS))
          .hasValueSatisfying(kept -> assertThat(kept.policy().path("active").asText()).isEqualTo("static-plus"));
    } finally {
      later.stopThenClose(source);
      source = null;
    }
  }

  /** What an administrator forgets while crigate is stopped is not resumed, and the forgetting names it. */
  @Test
  void aConfigMapForgottenByHandIsNotResumedByTheNextStart() throws Exception {
    configMap("crigate-config.default", "active: static");
    start();
    restartWithoutTheApiServer();

    assertThat(PolicyConfigMaps.forgetRemembered(store)).hasValueSatisfying(forgotten -> assertThat(forgotten)
        .matches("kube-system/crigate-config\\.default \\(resourceVersion \\d+, chosen for node node-1\\)"));
    assertThat(PolicyConfigMaps.forgetRemembered(store)).as("nothing left to forget").isEmpty();
    ApiServerLater later = new ApiServerLater();
    try {
      source = PolicyConfigMaps.start(later.client, SETTINGS, policy, store, Duration.ofMillis(200));
      assertThat(policy.active()).isEqualTo("none");
    } finally {
      later.stopThenClose(source);
      source = null;
    }
  }

  @Test
  void aConfigMapDeletedIsForgottenSoARestartWithoutTheApiServerRunsOnTheMainConfiguration() throws Exception {
    configMap("crigate-config.default", "active: static");
    start();
    client.configMaps().inNamespace(NS).withName("crigate-config.default").delete();
    awaitActive("none");
    assertThat(store.get(RememberedConfigMap.KEY)).isEmpty();

    restartWithoutTheApiServer();
    ApiServerLater later = new ApiServerLater();
    try {
      source = PolicyConfigMaps.start(later.client, SETTINGS, policy, store, FIRST_SYNC_WAIT);
      assertThat(policy.active()).isEqualTo("none");
    } finally {
      later.stopThenClose(source);
      source = null;
    }
  }

  @Test
  void aRememberedConfigMapIsNotResumedForAnotherNodeNorOnceThePolicyRejectsIt() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    for (RememberedConfigMap stale : List.of(
        new RememberedConfigMap(NS, "node-2", "crigate-config.node.node-2", "7", yaml.readTree("active: static")),
        // a CPU this 4-core machine does not have, e.g. after its hardware changed
        new RememberedConfigMap(NS, NODE, "crigate-config.default", "7", yaml.readTree("active: static\nreservedCpus: \"0-7\"")))) {
      stale.keep(store);
      ApiServerLater later = new ApiServerLater();
      try {
        source = PolicyConfigMaps.start(later.client, SETTINGS, policy, store, FIRST_SYNC_WAIT);
        assertThat(policy.active()).as(stale.toString()).isEqualTo("none");
        assertThat(store.get(RememberedConfigMap.KEY)).as(stale.toString()).isEmpty();
      } finally {
        later.stopThenClose(source);
        source = null;
      }
    }
  }

  /** crigate_policy_cluster_configmap_info for the default ConfigMap, read as {@code from} says; null when absent. */
  Double configMapInfo(String from) {
    return MetricValues.of(registry, "crigate_policy_cluster_configmap_info",
        "configmap", NS + "/crigate-config.default", "from", from);
  }

  /**
   * An API server that refuses connections until {@link #comesWithDefaultConfigMap} starts a CRUD
   * mock on its port. The client does not retry inside one request, so the informers' first lists
   * fail rather than outlast the outage.
   */
  static final class ApiServerLater {
    final int port;
    final KubernetesClient client;
    final KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    boolean started;

    ApiServerLater() throws Exception {
      try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = probe.getLocalPort(); // free once closed: the first lists are refused
      }
      client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port)
          .withRequestRetryBackoffLimit(0).withRequestTimeout(120_000).build()).build();
    }

    void comesWithDefaultConfigMap(String policyYaml) {
      server.init(InetAddress.getLoopbackAddress(), port);
      started = true;
      try (KubernetesClient admin = server.createClient()) {
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        admin.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata()
            .withName("crigate-config.default").endMetadata()
            .withData(Map.of(ConfigMapNames.DATA_KEY, policyYaml)).build()).create();
      }
    }

    void stopThenClose(PolicyConfigMaps source) throws Exception {
      if (started) {
        MockApiShutdown.stopServerThenClose(server, source, client);
      } else {
        source.close();
        client.close();
      }
    }
  }

  @Test
  void aBadConfigMapIsRejectedNamingTheFieldPostedOnTheNodeAndThePreviousStays() {
    configMap("crigate-config.default", "active: static");
    start();
    assertThat(policy.active()).isEqualTo("static");

    configMap("crigate-config.group.fast", "active: static-plus\nreservedCpus: \"0-3\"");

    await("a warning event on the node").atMost(WAIT).until(() -> !events().isEmpty());
    Event event = events().getFirst();
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getReason()).isEqualTo(NodeEvents.REJECTED);
    assertThat(event.getMessage()).contains("crigate-config.group.fast").contains("policy.reservedCpus");
    assertThat(event.getInvolvedObject().getName()).isEqualTo(NODE);
    assertThat(policy.active()).isEqualTo("static");

    configMap("crigate-config.group.fast", "active: static-plus");
    awaitActive("static-plus");
    assertThat(events()).hasSize(1);
  }

  @Test
  void aConfigMapWithoutThePolicyKeyIsRejectedNamingTheKey() {
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName("crigate-config.default")
        .endMetadata().withData(Map.of("polcy", "active: static")).build()).create();
    start();

    assertThat(policy.active()).isEqualTo("none");
    await().atMost(WAIT).until(() -> !events().isEmpty());
    assertThat(events().getFirst().getMessage()).contains("data.policy");
  }

  // CRI Resource Manager's ConfigMaps and group label, as its README names them, beside crigate's own

  static final String CRI_RM_GROUP_LABEL = "cri-resource-manager.intel.com/group";

  /** The README's static example, as the data of a ConfigMap. */
  static final String README_STATIC = """
      ReservedResources:
        CPU: 1
      Active: static
      """;

  @Test
  void criRmConfigMapsApplyWithTheirGroupLabelAndCrigatesWinAtTheSameLevel() {
    // kubectl label --overwrite nodes node-1 cri-resource-manager.intel.com/group=foo (crigate's label removed)
    client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().removeFromLabels(GROUP_LABEL)
        .addToLabels(CRI_RM_GROUP_LABEL, "foo").endMetadata().build());
    configMap("cri-resmgr-config.default", "Active: static-plus\n");
    start();
    assertThat(policy.active()).isEqualTo("static-plus");

    configMap("cri-resmgr-config.group.foo", README_STATIC);
    awaitActive("static");

    // both kinds for the group: crigate's own wins
    configMap("crigate-config.group.foo", "active: topology-aware");
    awaitActive("topology-aware");

    // a node-level CRI Resource Manager ConfigMap beats any group-level one
    configMap("cri-resmgr-config.node." + NODE, "Active: null\n");
    awaitActive("none");

    // kubectl label nodes node-1 cri-resource-manager.intel.com/group-
    client.configMaps().inNamespace(NS).withName("cri-resmgr-config.node." + NODE).delete();
    client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().removeFromLabels(CRI_RM_GROUP_LABEL)
        .endMetadata().build());
    awaitActive("static-plus");
  }

  @Test
  void aSettingCrigateCannotHonourRejectsTheConfigMapNamingIt() {
    configMap("cri-resmgr-config.default", README_STATIC);
    start();
    assertThat(policy.active()).isEqualTo("static");

    configMap("cri-resmgr-config.node." + NODE, "Active: podpools\n");

    await("a warning event on the node").atMost(WAIT).until(() -> !events().isEmpty());
    Event event = events().getFirst();
    assertThat(event.getMessage()).contains("cri-resmgr-config.node." + NODE)
        .contains("policy.Active: policy 'podpools' is not implemented by crigate");
    assertThat(policy.active()).isEqualTo("static");
  }

  List<Event> events() {
    return client.v1().events().inNamespace(NodeEvents.NAMESPACE).list().getItems().stream()
        .filter(e -> NODE.equals(e.getInvolvedObject().getName())).toList();
  }
}
