package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeImageLayersCodec;
import io.crigate.images.NodeLayerInventory;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips through the real HTTP server with payloads shaped as kube-scheduler sends them;
 * inventories come from NodeImageLayers objects, and loads from Nodes and Pods, in a (mock) API
 * server, through the informers.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderServerTest {

  static KubernetesClient client;
  static KubernetesMockServer apiServer;

  static final Layer BASE = new Layer("sha256:" + "a".repeat(64), 300_000_000);
  static final Layer APP = new Layer("sha256:" + "b".repeat(64), 40_000_000);
  static final Map<String, ImageLayers> REGISTRY = Map.of(
      "127.0.0.1:5000/crigate/base:1", new ImageLayers("127.0.0.1:5000/crigate/base:1", "sha256:" + "1".repeat(64), List.of(BASE)),
      "127.0.0.1:5000/crigate/a:1", new ImageLayers("127.0.0.1:5000/crigate/a:1", "sha256:" + "2".repeat(64), List.of(BASE, APP)));

  final ObjectMapper mapper = new ObjectMapper();
  final HttpClient http = HttpClient.newHttpClient();
  static final NodeTable nodes = new NodeTable();
  static final LayerIndex index = new LayerIndex(nodes);
  static InventoryInformer informer;
  static NodeLoads loads = new NodeLoads(nodes);
  static NodeLoadInformer loadInformer;
  static ExtenderServer server;

  @BeforeAll
  static void start() {
    publish("node-a", BASE, APP);
    publish("node-b", BASE);
    // node-c publishes nothing
    for (String node : List.of("node-a", "node-b", "node-c")) {
      client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata()
          .withNewStatus().addToAllocatable("cpu", new Quantity("8")).endStatus().build()).create();
    }
    informer = new InventoryInformer(client, index);
    loadInformer = new NodeLoadInformer(client, loads);
    await().until(() -> index.nodes() == 2 && loads.apply("node-c").known());
    server = new ExtenderServer("127.0.0.1", 0, "/crigate", true, index, loads, ref -> {
      ImageLayers layers = REGISTRY.get(ref);
      if (layers == null) {
        throw new CrigateException.NotFound("image " + ref);
      }
      return layers;
    });
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    MockApiShutdown.stopServerThenClose(apiServer, loadInformer, informer);
  }

  static void publish(String node, Layer... layers) {
    Map<String, Long> held = Stream.of(layers).collect(java.util.stream.Collectors.toMap(Layer::digest, Layer::size));
    client.resource(NodeImageLayersCodec.toResource(new NodeLayerInventory(node, held, Set.of(), Instant.now())))
        .createOr(existing -> existing.update());
  }

  record Case(String name, String fixture, String rename) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> requestShapes() {
    return Stream.of(
        new Case("nodeCacheCapable: NodeNames", "args-nodenames.json", ""),
        new Case("full v1.NodeList", "args-nodelist.json", ""),
        new Case("lower-case keys", "args-nodelist.json", "lower"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requestShapes")
  void prioritizeScoresHeldLayers(Case c) throws Exception {
    String body = fixture(c.fixture());
    if (c.rename().equals("lower")) {
      body = body.replace("\"Pod\":", "\"pod\":").replace("\"Nodes\":", "\"nodes\":").replace("\"NodeNames\":", "\"nodenames\":");
    }
    HttpResponse<String> response = post("/crigate/prioritize", body);
    assertThat(response.statusCode()).isEqualTo(200);
    // pod layers (init base:1 + a:1, BASE counted once): 300 MB + 40 MB. Missing: node-a 0, node-b 40 MB,
    // node-c (no inventory) 340 MB. No pods anywhere: equal loads, each node the others' alternative.
    // The pod requests 250 m, counted as half a core: extra bytes weigh double.
    // Extra over node-a: 0 -> 10, round(40/0.5/20) = 4 -> 6, round(340/0.5/20) = 34 capped 5 -> 5
    assertThat(mapper.readTree(response.body())).isEqualTo(mapper.readTree(
        "[{\"Host\":\"node-a\",\"Score\":10},{\"Host\":\"node-b\",\"Score\":6},{\"Host\":\"node-c\",\"Score\":5}]"));
  }

  @Test
  void filterKeepsNodesWithInventoryAndEchoesThemUnchanged() throws Exception {
    String body = fixture("args-nodelist.json");
    HttpResponse<String> response = post("/crigate/filter", body);
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode result = mapper.readTree(response.body());
    JsonNode sent = mapper.readTree(body).path("Nodes").path("items");
    assertThat(result.path("Nodes").path("items")).containsExactly(sent.get(0), sent.get(1));
    assertThat(result.path("FailedNodes").path("node-c").asText()).contains("no crigate layer inventory");
    assertThat(result.path("Error").asText()).isEmpty();
  }

  @Test
  void filterAnswersNodeNamesWhenAskedByName() throws Exception {
    JsonNode result = mapper.readTree(post("/crigate/filter", fixture("args-nodenames.json")).body());
    assertThat(result.path("NodeNames")).containsExactly(mapper.valueToTree("node-a"), mapper.valueToTree("node-b"));
    assertThat(result.path("Nodes").isNull()).isTrue();
  }

  @Test
  void inventoryChangesReachTheScoreThroughTheWatch() throws Exception {
    publish("node-c", BASE, APP);
    try {
      // node-c now holds both layers: missing 0, like node-a -> 10 (was 5 with no inventory)
      await().untilAsserted(() -> assertThat(mapper.readTree(post("/crigate/prioritize", fixture("args-nodenames.json")).body())
          .get(2).path("Score").asLong()).isEqualTo(10));
    } finally {
      client.resources(io.crigate.images.NodeImageLayers.class).withName("node-c").delete();
      await().until(() -> index.nodes() == 2);
    }
  }

  @Test
  void aBusyHolderStopsPullingOnceItsPodsReachTheInformer() throws Exception {
    client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("busy").endMetadata()
        .withNewSpec().withNodeName("node-a").addNewContainer().withName("c").withImage("x:1")
        .withNewResources().addToRequests("cpu", new Quantity("6")).endResources().endContainer().endSpec().build()).create();
    try {
      // node-a: (6000 + the pod's 250 m) / 8000 = 0.78, above the mean 0.25 + its band 0.22 x 0.25 = 0.305 and
      // above node-b's 0.03 + 0.05 x 0.25: no longer node-b's alternative, so node-b is not charged its 40 MB (8 -> 10).
      // node-c is still charged against node-b (0.03 <= 0.305): 300 MB -> 5
      await().untilAsserted(() -> assertThat(mapper.readTree(post("/crigate/prioritize", fixture("args-nodenames.json")).body()))
          .isEqualTo(mapper.readTree(
              "[{\"Host\":\"node-a\",\"Score\":10},{\"Host\":\"node-b\",\"Score\":10},{\"Host\":\"node-c\",\"Score\":5}]")));
    } finally {
      client.pods().inNamespace("default").withName("busy").delete();
      await().until(() -> loads.apply("node-a").requestedMillis() == 0);
    }
  }

  @Test
  void imageTheRegistryDoesNotKnowGivesNoPreferenceInsteadOfFailing() throws Exception {
    String body = fixture("args-nodenames.json").replace("crigate/a:1", "crigate/missing:1").replace("crigate/base:1", "crigate/gone:1");
    HttpResponse<String> response = post("/crigate/prioritize", body);
    assertThat(response.statusCode()).isEqualTo(200);
    // no layers known: nothing to pull anywhere, every node the same 10
    assertThat(mapper.readTree(response.body())).hasSize(3).allSatisfy(p -> assertThat(p.path("Score").asLong()).isEqualTo(10));
  }

  record BadCase(String name, String body, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadCase> badRequests() {
    return Stream.of(
        new BadCase("not JSON", "{\"Pod\": ", "not JSON"),
        new BadCase("not an object", "[]", "JSON object"),
        new BadCase("missing Pod", "{\"NodeNames\": [\"n\"]}", "missing Pod"),
        new BadCase("no nodes", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x:1\"}]}}}",
            "neither Nodes nor NodeNames"),
        new BadCase("no containers", "{\"Pod\": {\"spec\": {}}, \"NodeNames\": [\"n\"]}", "no spec.containers"),
        new BadCase("container without image", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\"}]}}, \"NodeNames\": [\"n\"]}",
            "container c of Pod has no image"),
        new BadCase("NodeNames not an array", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x:1\"}]}}, \"NodeNames\": \"n\"}",
            "NodeNames must be an array"),
        new BadCase("NodeNames entry not a string", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x:1\"}]}}, \"NodeNames\": [\"n\", 3]}",
            "NodeNames entry must be a non-empty string"),
        new BadCase("empty body", "", "JSON object"),
        new BadCase("CPU request not a quantity", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x:1\", "
            + "\"resources\": {\"requests\": {\"cpu\": \"lots\"}}}]}}, \"NodeNames\": [\"n\"]}", "CPU quantity lots is not a number"),
        new BadCase("NodeList without items", "{\"Pod\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x:1\"}]}}, \"Nodes\": {}}",
            "items array"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void badInputIs400WithAMessage(BadCase c) throws Exception {
    for (String verb : List.of("prioritize", "filter")) {
      HttpResponse<String> response = post("/crigate/" + verb, c.body());
      assertThat(response.statusCode()).as(verb).isEqualTo(400);
      assertThat(response.body()).as(verb).contains(c.message());
    }
  }

  @Test
  void filterVerbIsOffUnlessAskedFor() throws Exception {
    try (ExtenderServer prioritizeOnly = new ExtenderServer("127.0.0.1", 0, "/crigate", false, index, loads, REGISTRY::get)) {
      URI base = URI.create("http://127.0.0.1:" + prioritizeOnly.port() + "/crigate/");
      String body = fixture("args-nodenames.json");
      assertThat(send(base.resolve("filter"), body).statusCode()).isEqualTo(404);
      assertThat(send(base.resolve("prioritize"), body).statusCode()).isEqualTo(200);
    }
  }

  private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
    return send(URI.create("http://127.0.0.1:" + server.port() + path), body);
  }

  private HttpResponse<String> send(URI uri, String body) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(uri)
        .timeout(Duration.ofMinutes(2))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String fixture(String name) throws IOException {
    return Files.readString(Path.of("src/test/resources/extender", name));
  }
}
