package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.PodLayers;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pods seen bound through the pod informer (a mock API server) make their node count as holding
 * the layers they are pulling, until they end or go; a running pod or an image whose layers the
 * extender does not know adds nothing.
 */
@EnableKubernetesMockClient(crud = true)
class BoundPodPullsTest {

  static final String KNOWN = "reg.lan:5000/apps/known:v1";
  static final String UNKNOWN = "reg.lan:5000/apps/unknown:v1";
  static final Layer BASE = new Layer("sha256:" + "1".repeat(64), 40);
  static final Layer APP = new Layer("sha256:" + "2".repeat(64), 100);
  static final ImageLayers KNOWN_LAYERS = new ImageLayers(KNOWN, "sha256:" + "3".repeat(64), List.of(BASE, APP));
  static final PodLayers POD = PodLayers.of(List.of(KNOWN_LAYERS));

  KubernetesClient client;
  LayerIndex index;
  NodeLoadInformer informer;

  @BeforeEach
  void start() {
    NodeTable nodes = new NodeTable();
    index = new LayerIndex(nodes);
    index.put(new NodeLayerInventory("node-a", Map.of(BASE.digest(), BASE.size()), Set.of(), Instant.EPOCH));
    index.put(new NodeLayerInventory("node-b", Map.of(), Set.of(), Instant.EPOCH));
    ImageLayerSource images = ImageLayerSource.of(ref -> { throw new AssertionError("the informer must not wait on a registry"); },
        ref -> ref.equals(KNOWN) ? Optional.of(KNOWN_LAYERS) : Optional.empty());
    informer = new NodeLoadInformer(client, new NodeLoads(nodes), new BoundPodPulls(index, images));
  }

  @AfterEach
  void stop() {
    informer.close();
  }

  long[] missing() {
    int[] numbers = List.of("node-a", "node-b").stream().mapToInt(node -> index.nodeTable().resolve(node).number).toArray();
    return index.missingBytes(POD, numbers, new long[2]);
  }

  static Pod pod(String name, String node, String image, String phase) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("apps").endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage(image).endContainer().endSpec()
        .withNewStatus().withPhase(phase).endStatus().build();
  }

  @Test
  void aPendingPodBoundToANodeBringsItsLayersThereUntilItGoes() {
    client.pods().inNamespace("apps").resource(pod("p", "node-b", KNOWN, "Pending")).create();
    await().untilAsserted(() -> assertThat(missing()).containsExactly(100, 0));
    client.pods().inNamespace("apps").withName("p").delete();
    await().untilAsserted(() -> assertThat(missing()).containsExactly(100, 140));
  }

  @Test
  void aPodThatEndsNoLongerBringsItsLayers() {
    client.pods().inNamespace("apps").resource(pod("p", "node-a", KNOWN, "Pending")).create();
    await().untilAsserted(() -> assertThat(missing()).containsExactly(0, 140));
    client.pods().inNamespace("apps").withName("p")
        .editStatus(p -> new PodBuilder(p).editStatus().withPhase("Failed").endStatus().build());
    await().untilAsserted(() -> assertThat(missing()).containsExactly(100, 140));
  }

  @Test
  void runningPodsUnknownImagesAndUnboundPodsBringNothing() {
    client.pods().inNamespace("apps").resource(pod("running", "node-b", KNOWN, "Running")).create();
    client.pods().inNamespace("apps").resource(pod("unknown", "node-b", UNKNOWN, "Pending")).create();
    client.pods().inNamespace("apps").resource(pod("unbound", null, KNOWN, "Pending")).create();
    // a pod created after the others and seen after them: once it shows, so would they have
    client.pods().inNamespace("apps").resource(pod("marker", "node-a", KNOWN, "Pending")).create();
    await().untilAsserted(() -> assertThat(missing()[0]).isZero());
    assertThat(missing()[1]).isEqualTo(140);
  }
}
