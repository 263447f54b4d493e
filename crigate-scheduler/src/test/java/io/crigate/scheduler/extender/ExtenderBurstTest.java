package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A burst of pods of one image, scored faster than their bindings reach the informer (issue 18
 * item 3): the extender counts the pods it scored on their likely node, so the node holding the
 * image stops being preferred once it is busier than the band allows, as it would if the informer
 * had seen every binding; and once the informer does see them, nothing is counted twice.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderBurstTest {

  private static final String IMAGE = "reg.lan:5000/burst/app:v1";
  private static final Layer BASE = new Layer("sha256:" + "1".repeat(64), 40_000_000);
  private static final Layer APP = new Layer("sha256:" + "2".repeat(64), 100_000_000);
  private static final List<String> NODES = List.of("holder", "free-1", "free-2", "free-3");
  private static final int BURST = 30;

  KubernetesClient client;
  KubernetesMockServer server;
  NodeLoads loads;
  NodeLoadInformer informer;
  LayerExtender extender;

  @BeforeEach
  void start() {
    for (String node : NODES) {
      client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata()
          .withNewStatus().addToAllocatable("cpu", new Quantity("4")).endStatus().build()).create();
    }
    NodeTable nodes = new NodeTable();
    loads = new NodeLoads(nodes);
    informer = new NodeLoadInformer(client, loads);
    await().until(() -> NODES.stream().allMatch(node -> loads.apply(node).known()));
    LayerIndex index = new LayerIndex(nodes);
    index.put(new NodeLayerInventory("holder", Map.of(BASE.digest(), BASE.size(), APP.digest(), APP.size()), Set.of(),
        Instant.now()));
    extender = new LayerExtender(index, loads, ImageLayerSource.inMemory(ref -> new ImageLayers(IMAGE, "sha256:" + "3".repeat(64), List.of(BASE, APP))));
  }

  @AfterEach
  void stop() throws Exception {
    MockApiShutdown.stopServerThenClose(server, informer);
  }

  static Pod pod(int i) {
    return new PodBuilder().withNewMetadata().withName("burst-" + i).withNamespace("apps").endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage(IMAGE)
        .withNewResources().addToRequests("cpu", new Quantity("250m")).endResources().endContainer()
        .endSpec().build();
  }

  static PodRequest request(int i) {
    return new PodRequest("apps", "burst-" + i, List.of(IMAGE));
  }

  /** Scores the pod as kube-scheduler's request would carry it; true when the holder alone scores best. */
  private boolean holderPreferred(PodRequest pod) {
    long[] scores = extender.prioritize(new ExtenderArgs(pod, 250, new CandidateNodes.Names(NODES)), new CallBuffers(), true).scores();
    return Arrays.stream(scores).skip(1).allMatch(other -> other < scores[0]);
  }

  @Test
  void aBurstScoredBeforeAnyBindingIsSeenDoesNotAllPreferTheHolder() {
    int preferred = 0;
    for (int i = 0; i < BURST; i++) {
      preferred += holderPreferred(request(i)) ? 1 : 0;
    }
    // The first pods follow the layers; with the informer blind to the burst every one of the 30
    // would (the holder looks idle throughout). Counting its own recent placements, the extender
    // stops charging the free nodes while the holder is more than the band above them.
    assertThat(preferred).isPositive().isLessThanOrEqualTo(BURST / 3);
  }

  @Test
  void oncePodsAreSeenBoundTheyCountOnceWhereTheyWent() {
    for (int i = 0; i < 8; i++) {
      extender.prioritize(new ExtenderArgs(request(i), 250, new CandidateNodes.Names(NODES)), new CallBuffers(), true);
    }
    // kube-scheduler sent all of them to free-3, whatever the extender guessed
    for (int i = 0; i < 8; i++) {
      client.pods().inNamespace("apps").resource(new PodBuilder(pod(i)).editSpec().withNodeName("free-3").endSpec().build())
          .create();
    }
    await().until(() -> loads.apply("free-3").requestedMillis() == 8 * 250);
    assertThat(NODES.stream().mapToLong(node -> loads.apply(node).requestedMillis()).sum()).isEqualTo(8 * 250);
  }

  @Test
  void aPodScoredAgainDoesNotCountItsOwnEarlierGuess() {
    long[] first = extender.prioritize(new ExtenderArgs(request(0), 4000, new CandidateNodes.Names(NODES)), new CallBuffers(), true)
        .scores().clone();
    // kube-scheduler could not bind it and asks again: the holder was guessed and must look as idle as before
    long[] retry = extender.prioritize(new ExtenderArgs(request(0), 4000, new CandidateNodes.Names(NODES)), new CallBuffers(), true)
        .scores();
    assertThat(retry).containsExactly(first);
    assertThat(loads.apply("holder").requestedMillis()).isEqualTo(4000);
  }

  @Test
  void aScoredPodThatIsNeverBoundStopsCountingAfterItsTime() {
    long[] now = {0};
    NodeLoads clocked = new NodeLoads(new NodeTable(), () -> now[0]);
    clocked.allocatable("holder", 4000);
    clocked.assume("apps/lost", "holder", 500);
    assertThat(clocked.apply("holder").requestedMillis()).isEqualTo(500);
    now[0] = NodeLoads.ASSUMED_FOR.toNanos() + 1;
    clocked.forgetExpired();
    assertThat(clocked.apply("holder").requestedMillis()).isZero();
  }
}
