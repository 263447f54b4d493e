package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ListImagesResponse;
import io.crigate.spi.ImageRef;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inventory to cluster, end to end: real registry for layer sizes, fabric8's mock API server in
 * CRUD mode for the NodeImageLayers objects, the production publisher in between.
 */
@EnableKubernetesMockClient(crud = true)
class InventoryPublicationTest {

  private static final String NODE = "node-1";
  private static final Duration DEBOUNCE = Duration.ofMillis(400);

  KubernetesClient client;
  KubernetesMockServer server;

  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicReference<List<Image>> images = new AtomicReference<>(List.of());
  private ImageLayers a;
  private ImageLayers b;
  private String imageB;
  private LayerInventory inventory;

  @BeforeEach
  void setUp() {
    LocalRegistry.fromEnv();
    var registry = new RegistryClient(RegistryClientConfig.defaults());
    a = registry.layers(LocalRegistry.image("CRIGATE_IMAGE_A"));
    imageB = LocalRegistry.image("CRIGATE_IMAGE_B");
    b = registry.layers(imageB);
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    images.set(List.of(runtimeImage(a)));
    var resolver = new ImageLayerResolver(registry::layers, lookups, Clock.systemUTC(), 100);
    inventory = new LayerInventory(NODE, () -> ListImagesResponse.newBuilder().addAllImages(images.get()).build(),
        resolver, Clock.systemUTC(), DEBOUNCE, Duration.ofHours(1), new InventoryPublisher(client));
  }

  @AfterEach
  void tearDown() {
    if (inventory != null) {
      inventory.close();
    }
    lookups.shutdownNow();
  }

  private static Image runtimeImage(ImageLayers layers) {
    return Image.newBuilder().setId(layers.digest())
        .addRepoDigests(ImageRef.parse(layers.reference()).name() + "@" + layers.digest()).build();
  }

  private NodeImageLayers published() {
    return client.resources(NodeImageLayers.class).withName(NODE).get();
  }

  private static Set<String> digests(ImageLayers... images) {
    return java.util.Arrays.stream(images).flatMap(i -> i.layers().stream()).map(Layer::digest).collect(Collectors.toSet());
  }

  @Test
  void publishesFollowsAPullAndARemovalAndDecodesBack() {
    await().atMost(Duration.ofSeconds(20)).until(() -> published() != null);
    assertThat(published().getSpec().layers().keySet()).isEqualTo(digests(a));
    assertThat(published().getSpec().pulling()).isEmpty();
    assertThat(published().getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(client.nodes().withName(NODE).get().getMetadata().getUid()));

    // while B is pulled, only the layer A lacks is "pulling"; the shared base is already here
    inventory.pullStarted(imageB);
    await().atMost(Duration.ofSeconds(20)).until(() -> !published().getSpec().pulling().isEmpty());
    assertThat(published().getSpec().pulling()).containsExactly(b.layers().getLast().digest());
    assertThat(published().getSpec().layers().keySet()).isEqualTo(digests(a, b));

    images.set(List.of(runtimeImage(a), runtimeImage(b)));
    inventory.pullFinished(imageB);
    await().atMost(Duration.ofSeconds(20)).until(() -> published().getSpec().pulling().isEmpty());
    assertThat(published().getSpec().layers().keySet()).isEqualTo(digests(a, b));

    images.set(List.of(runtimeImage(b)));
    inventory.imageRemoved(a.reference());
    await().atMost(Duration.ofSeconds(20)).until(() -> published().getSpec().layers().keySet().equals(digests(b)));

    NodeLayerInventory decoded = NodeImageLayersCodec.fromResource(published());
    assertThat(decoded.node()).isEqualTo(NODE);
    assertThat(decoded.layers()).isEqualTo(inventory.current().layers());
    assertThat(decoded.bytesOf(b.layers().getFirst().digest())).isEqualTo(b.layers().getFirst().size());
  }

  @Test
  void aBurstOfPullEventsCoalescesIntoFewWrites() throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> published() != null);
    int before = writes();

    for (int i = 0; i < 100; i++) {
      inventory.pullStarted(imageB);
      inventory.pullFinished(imageB);
    }
    inventory.pullStarted(imageB);
    await().atMost(Duration.ofSeconds(20)).until(() -> !published().getSpec().pulling().isEmpty());
    int burst = writes();

    // 201 events inside about one debounce window: one rebuild, at most two if the burst straddles a window
    assertThat(before).isEqualTo(1);
    assertThat(burst).isBetween(1, 2);
  }

  @Test
  void anObjectDeletedBehindOurBackIsRecreatedWithTheNextChange() {
    await().atMost(Duration.ofSeconds(20)).until(() -> published() != null);
    client.resources(NodeImageLayers.class).withName(NODE).delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> published() == null);

    inventory.pullStarted(imageB);

    await().atMost(Duration.ofSeconds(20)).until(() -> published() != null);
    assertThat(published().getSpec().pulling()).containsExactly(b.layers().getLast().digest());
  }

  @Test
  void removingDeletesTheObject() {
    await().atMost(Duration.ofSeconds(20)).until(() -> published() != null);

    new InventoryPublisher(client).remove(NODE);

    assertThat(published()).isNull();
  }

  /** Counts and drains the writes (POST/PUT/PATCH) to NodeImageLayers the mock server recorded so far. */
  private int writes() throws InterruptedException {
    int count = 0;
    RecordedRequest request;
    while ((request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
      if (request.getPath().contains("nodeimagelayers") && Set.of("POST", "PUT", "PATCH").contains(request.getMethod())) {
        count++;
      }
    }
    return count;
  }
}
