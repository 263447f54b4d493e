package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeImageLayers;
import io.crigate.images.NodeImageLayersCodec;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.NodeLoad;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extender's index keeps only what the score reads (per node: layer digests, allocatable CPU,
 * the CPU and number of the pods bound to it) and drops the objects. Here its answer is compared with the score
 * computed from the full objects as the API server returns them: if the index drops or misreads a
 * field the score needs (a layer, allocatable CPU, a pod's init containers, sidecars, overhead or
 * pod-level request, its phase or node), the two differ.
 */
@EnableKubernetesMockClient(crud = true)
class SlimIndexScoresTest {

  KubernetesClient client;
  KubernetesMockServer server;
  final ObjectMapper mapper = new ObjectMapper();
  final SplittableRandom random = new SplittableRandom(18);
  final List<Layer> pool = IntStream.range(0, 12)
      .mapToObj(i -> new Layer("sha256:%064x".formatted(i + 1), (i + 1) * 15_000_000L)).toList();
  final ImageLayers init = new ImageLayers("reg/init:1", "sha256:" + "e".repeat(64), pool.subList(0, 3));
  final ImageLayers app = new ImageLayers("reg/app:1", "sha256:" + "f".repeat(64), pool.subList(1, 8));
  final NodeTable nodes = new NodeTable();
  final LayerIndex index = new LayerIndex(nodes);
  final NodeLoads loads = new NodeLoads(nodes);
  InventoryInformer inventories;
  NodeLoadInformer loadInformer;
  ExtenderVerbs verbs;

  @BeforeEach
  void cluster() {
    for (int n = 0; n < 8; n++) {
      String name = "node-" + n;
      client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
          .addToAllocatable("cpu", new Quantity((2000 + 500 * n) + "m")).addToAllocatable("memory", new Quantity("16Gi"))
          .endStatus().build()).create();
      if (n != 7) { // node-7 publishes nothing
        publish(name);
      }
    }
    for (int p = 0; p < 40; p++) {
      client.pods().inNamespace("apps").resource(pod("p" + p)).create();
    }
    inventories = new InventoryInformer(client, index);
    loadInformer = new NodeLoadInformer(client, loads);
    verbs = new ExtenderVerbs(index, loads, Map.of(init.reference(), init, app.reference(), app)::get);
  }

  @AfterEach
  void stop() throws Exception {
    MockApiShutdown.stopServerThenClose(server, loadInformer, inventories);
  }

  void publish(String node) {
    Map<String, Long> held = new HashMap<>();
    pool.stream().filter(l -> random.nextInt(3) > 0).forEach(l -> held.put(l.digest(), l.size()));
    client.resource(NodeImageLayersCodec.toResource(new NodeLayerInventory(node, held, Set.of(), Instant.now())))
        .createOr(existing -> existing.update());
  }

  /** Pods of every shape PodCpu counts, bound at random; some finished, some not yet bound. */
  Pod pod(String name) {
    var spec = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withNodeName(random.nextInt(10) == 0 ? null : "node-" + random.nextInt(8))
        .addToContainers(container("c", 100 + random.nextInt(900)));
    switch (random.nextInt(4)) {
      case 0 -> spec.addToInitContainers(container("init", 500 + random.nextInt(2000)));
      case 1 -> spec.addToInitContainers(new ContainerBuilder(container("sidecar", 50 + random.nextInt(200)))
          .withRestartPolicy("Always").build());
      case 2 -> spec.addToOverhead("cpu", new Quantity("250m"));
      default -> spec.withNewResources().addToRequests("cpu", new Quantity((300 + random.nextInt(700)) + "m")).endResources();
    }
    String phase = List.of("Running", "Running", "Pending", "Succeeded", "Failed").get(random.nextInt(5));
    return spec.endSpec().withNewStatus().withPhase(phase).endStatus().build();
  }

  static io.fabric8.kubernetes.api.model.Container container(String name, int cpuMillis) {
    return new ContainerBuilder().withName(name).withImage("x:1")
        .withNewResources().addToRequests("cpu", new Quantity(cpuMillis + "m")).endResources().build();
  }

  @Test
  void scoresEqualThoseComputedFromTheFullObjects() throws Exception {
    assertIndexMatchesTheObjects();
    assertThat(scoresFromTheIndex().values().stream().distinct().count()).as("a cluster where scores differ").isGreaterThan(1);
  }

  @Test
  void scoresStayEqualAsObjectsChangeThroughTheWatch() throws Exception {
    client.pods().inNamespace("apps").withName("p0").delete();
    client.pods().inNamespace("apps").withName("p1").editStatus(p -> new PodBuilder(p).editStatus().withPhase("Succeeded").endStatus().build());
    client.pods().inNamespace("apps").resource(pod("late")).create();
    client.nodes().withName("node-3").edit(n -> new NodeBuilder(n).editStatus().addToAllocatable("cpu", new Quantity("12")).endStatus().build());
    publish("node-2");
    client.resources(NodeImageLayers.class).withName("node-5").delete();
    await().untilAsserted(this::assertIndexMatchesTheObjects);
  }

  /**
   * The score's inputs (each node's CPU load, the bytes it misses) and its answer, from the index
   * and from the objects. Inputs are compared too: a small cluster's scores can hide a wrong load.
   */
  void assertIndexMatchesTheObjects() throws Exception {
    Reference objects = fromTheObjects();
    assertThat(objects.names().stream().map(loads).toList()).isEqualTo(objects.loads());
    assertThat(index.missingBytes(PodLayers.of(List.of(init, app)), objects.names().stream().map(nodes::resolve).mapToInt(entry -> entry.number).toArray(), new long[objects.names().size()])).isEqualTo(objects.missing());
    assertThat(scoresFromTheIndex()).isEqualTo(objects.scores());
  }

  Map<String, Long> scoresFromTheIndex() throws Exception {
    Map<String, Long> scores = new HashMap<>();
    mapper.readTree(verbs.prioritize(request())).forEach(p -> scores.put(p.path("Host").asText(), p.path("Score").asLong()));
    return scores;
  }

  record Reference(List<String> names, List<NodeLoad> loads, long[] missing, Map<String, Long> scores) {}

  /** The score and its inputs from what the API server holds now, with nothing dropped. */
  Reference fromTheObjects() {
    PodLayers podLayers = PodLayers.of(List.of(init, app));
    Map<String, Set<String>> held = new HashMap<>();
    client.resources(NodeImageLayers.class).list().getItems()
        .forEach(r -> held.put(r.getMetadata().getName(), r.getSpec().layers().keySet()));
    Map<String, Long> requested = new HashMap<>();
    Map<String, Integer> pods = new HashMap<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      String phase = pod.getStatus().getPhase();
      if (pod.getSpec().getNodeName() != null && !phase.equals("Succeeded") && !phase.equals("Failed")) {
        requested.merge(pod.getSpec().getNodeName(), PodCpu.millis(pod.getSpec()), Long::sum);
        pods.merge(pod.getSpec().getNodeName(), 1, Integer::sum);
      }
    }
    List<String> names = new ArrayList<>();
    List<NodeLoad> loads = new ArrayList<>();
    List<Long> missing = new ArrayList<>();
    for (Node node : client.nodes().list().getItems()) {
      String name = node.getMetadata().getName();
      names.add(name);
      loads.add(new NodeLoad(requested.getOrDefault(name, 0L), PodCpu.millis(node.getStatus().getAllocatable()),
          pods.getOrDefault(name, 0)));
      missing.add(LayerLocality.missingBytes(podLayers, held.getOrDefault(name, Set.of())::contains));
    }
    long[] missingBytes = missing.stream().mapToLong(Long::longValue).toArray();
    long[] scores = LayerLocality.scores(missingBytes, 250, loads);
    Map<String, Long> byNode = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      byNode.put(names.get(i), scores[i]);
    }
    return new Reference(names, loads, missingBytes, byNode);
  }

  byte[] request() throws Exception {
    var body = mapper.createObjectNode();
    var spec = body.putObject("Pod").putObject("spec");
    spec.putArray("initContainers").addObject().put("name", "init").put("image", init.reference());
    spec.putArray("containers").addObject().put("name", "app").put("image", app.reference())
        .putObject("resources").putObject("requests").put("cpu", "250m");
    var names = body.putArray("NodeNames");
    IntStream.range(0, 8).forEach(n -> names.add("node-" + n));
    return mapper.writeValueAsBytes(body);
  }
}
