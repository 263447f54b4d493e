package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.scheduler.NodeLoad;
import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Requests per node as pods are bound, finish and go, through informers on a (mock) API server. */
@EnableKubernetesMockClient(crud = true)
class NodeLoadInformerTest {

  KubernetesClient client;
  KubernetesMockServer server;
  NodeLoads loads;
  NodeLoadInformer informer;

  @BeforeEach
  void start() {
    node("node-a", "4");
    node("node-b", "7500m");
    loads = new NodeLoads(new NodeTable());
    informer = new NodeLoadInformer(client, loads);
  }

  @AfterEach
  void stop() throws Exception {
    MockApiShutdown.stopServerThenClose(server, informer);
  }

  void node(String name, String cpu) {
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewStatus().addToAllocatable("cpu", new Quantity(cpu)).endStatus().build()).create();
  }

  static Pod pod(String name, String node, String initCpu, String cpu) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("apps").endMetadata()
        .withNewSpec().withNodeName(node)
        .addNewInitContainer().withName("init").withImage("x:1")
        .withNewResources().addToRequests("cpu", new Quantity(initCpu)).endResources().endInitContainer()
        .addNewContainer().withName("c").withImage("x:1")
        .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer()
        .endSpec().build();
  }

  void create(Pod pod) {
    client.pods().inNamespace("apps").resource(pod).create();
  }

  @Test
  void sumsTheRequestsAndCountsTheBoundPodsPerNode() {
    create(pod("a1", "node-a", "100m", "500m"));   // max(500, 100) = 500
    create(pod("a2", "node-a", "2", "250m"));      // max(250, 2000) = 2000
    create(pod("b1", "node-b", "0", "1"));         // 1000
    create(pod("pending", null, "0", "3"));        // not bound: not counted
    await().untilAsserted(() -> {
      assertThat(loads.apply("node-a")).isEqualTo(new NodeLoad(2500, 4000, 2));
      assertThat(loads.apply("node-b")).isEqualTo(new NodeLoad(1000, 7500, 1));
    });
  }

  @Test
  void finishedAndDeletedPodsNoLongerCount() {
    create(pod("a1", "node-a", "0", "500m"));
    create(pod("a2", "node-a", "0", "1"));
    create(pod("a3", "node-a", "0", "2"));
    await().until(() -> loads.apply("node-a").requestedMillis() == 3500);
    client.pods().inNamespace("apps").withName("a1").editStatus(p -> new PodBuilder(p).withNewStatus().withPhase("Succeeded").endStatus().build());
    client.pods().inNamespace("apps").withName("a2").editStatus(p -> new PodBuilder(p).withNewStatus().withPhase("Failed").endStatus().build());
    client.pods().inNamespace("apps").withName("a3").delete();
    await().untilAsserted(() -> assertThat(loads.apply("node-a")).isEqualTo(new NodeLoad(0, 4000, 0)));
  }

  @Test
  void aPodBoundLaterCountsOnceItIsBound() {
    create(pod("late", null, "0", "750m"));
    client.pods().inNamespace("apps").withName("late").edit(p -> new PodBuilder(p).editSpec().withNodeName("node-b").endSpec().build());
    await().untilAsserted(() -> assertThat(loads.apply("node-b")).isEqualTo(new NodeLoad(750, 7500, 1)));
  }

  @Test
  void aNodeNotSeenOrGoneHasUnknownLoad() {
    assertThat(loads.apply("node-z")).isEqualTo(NodeLoad.UNKNOWN);
    client.nodes().withName("node-b").delete();
    await().untilAsserted(() -> assertThat(loads.apply("node-b").known()).isFalse());
  }
}
