package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.spi.CrigateException.InvalidArgument;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The extender reads its request with a streaming parser (the pod's few fields, names through
 * {@link NodeTable}); before, it bound the pod to a fabric8 {@code Pod} through a tree and read
 * every name into a new String. Here both readings of the same varied requests (unknown fields at
 * every level, reordered and case-varied keys, nulls, sidecars, overhead, pod-level requests, CPU
 * as numbers, names with JSON escapes and non-ASCII letters, duplicates, names of nodes the
 * extender does not know, both the NodeNames and the Nodes form) must give the same hosts in the
 * same order with the same scores.
 */
class StreamedRequestScoresTest {

  static final List<Layer> POOL = IntStream.range(0, 10)
      .mapToObj(i -> new Layer("sha256:%064x".formatted(i + 1), (i + 1) * 12_000_000L)).toList();
  static final Map<String, ImageLayers> REGISTRY = Map.of(
      "reg/base:1", new ImageLayers("reg/base:1", "sha256:" + "b".repeat(64), POOL.subList(0, 3)),
      "reg/app:1", new ImageLayers("reg/app:1", "sha256:" + "c".repeat(64), POOL.subList(2, 7)),
      "reg/side:1", new ImageLayers("reg/side:1", "sha256:" + "d".repeat(64), POOL.subList(6, 10)));
  /** Names the cluster knows; some need escapes in JSON, two are not ASCII. */
  static final List<String> KNOWN = List.of("node-0", "node-1", "ip-10-0-1-2.eu-west-1.compute.internal", "nœud-ü",
      "quote\"d", "back\\slash", "tab\there", "node-7", "node-8", "node-9");

  /** The registry: an image it does not have is an error, which the extender scores without. */
  static ImageLayers layers(String reference) {
    ImageLayers layers = REGISTRY.get(reference);
    if (layers == null) {
      throw new IllegalStateException("no image " + reference);
    }
    return layers;
  }

  final ObjectMapper mapper = new ObjectMapper();
  final SplittableRandom random = new SplittableRandom(18);
  /**
   * One node table, index and load table per path, filled alike: each call counts the scored pod on
   * its likely node, so both must see the same history, on one clock that only the test moves (a wall
   * clock lets one path's guesses expire before the other's on a slow machine).
   */
  final AtomicLong clock = new AtomicLong();
  final NodeTable streamedNodes = new NodeTable();
  final NodeTable boundNodes = new NodeTable();
  final LayerIndex streamedIndex = new LayerIndex(streamedNodes);
  final LayerIndex boundIndex = new LayerIndex(boundNodes);
  final NodeLoads streamedLoads = new NodeLoads(streamedNodes, clock::get);
  final NodeLoads boundLoads = new NodeLoads(boundNodes, clock::get);
  final ExtenderVerbs streamed = new ExtenderVerbs(streamedIndex, streamedLoads, StreamedRequestScoresTest::layers);
  final LayerExtender bound = new LayerExtender(boundIndex, boundLoads, ImageLayerSource.inMemory(StreamedRequestScoresTest::layers));

  StreamedRequestScoresTest() {
    for (int n = 0; n < KNOWN.size(); n++) {
      if (n % 4 != 3) { // every fourth node publishes nothing
        Map<String, Long> held = new LinkedHashMap<>();
        POOL.stream().filter(l -> random.nextInt(3) > 0).forEach(l -> held.put(l.digest(), l.size()));
        for (LayerIndex index : List.of(streamedIndex, boundIndex)) {
          index.put(new NodeLayerInventory(KNOWN.get(n), held, Set.of(), Instant.EPOCH));
        }
      }
      if (n % 5 != 4) { // every fifth node's load is unknown
        long allocatable = 2000 + 1000L * random.nextInt(4);
        long requested = random.nextLong(allocatable);
        int pods = random.nextInt(20);
        for (NodeLoads loads : List.of(streamedLoads, boundLoads)) {
          loads.allocatable(KNOWN.get(n), allocatable);
          loads.addRequested(KNOWN.get(n), requested, pods);
        }
      }
    }
  }

  @Test
  void streamedAndBoundRequestsScoreAlike() throws Exception {
    for (int i = 0; i < 200; i++) {
      // a second per request: earlier guesses expire part way through, alike on both paths
      clock.addAndGet(Duration.ofSeconds(1).toNanos());
      byte[] body = mapper.writeValueAsBytes(request(i));
      List<String> expected = previousPath(body);
      assertThat(answer(streamed.prioritize(body))).as("request %d: %s", i, new String(body, StandardCharsets.UTF_8))
          .isEqualTo(expected);
    }
  }

  @Test
  void namesWrittenWithUnicodeEscapesAreTheSameNodes() throws Exception {
    // "nœud-ü" and "node-1" spelt with \\u escapes, as any JSON encoder may send them
    String body = "{\"Pod\":" + mapper.writeValueAsString(pod(0)) + ",\"NodeNames\":[\"n\\u0153ud-\\u00fc\",\"node\\u002d1\",\"node-0\"]}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    List<String> answer = answer(streamed.prioritize(bytes));
    assertThat(answer).isEqualTo(previousPath(bytes));
    assertThat(answer).map(entry -> entry.substring(0, entry.indexOf('='))).containsExactly("nœud-ü", "node-1", "node-0");
  }

  @Test
  void requestsBothPathsRejectAreRejectedWithAReason() {
    List<String> bad = List.of(
        "[]",
        "{\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":null,\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":[]}},\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}},\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":{\"name\":\"c\"}}},\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"metadata\":[],\"spec\":{\"containers\":[{\"image\":\"reg/app:1\"}]}},\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"image\":\"reg/app:1\"}]}},\"NodeNames\":[\"node-0\",7]}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"image\":\"reg/app:1\"}]}},\"NodeNames\":[\"\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"image\":\"reg/app:1\"}]}}}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"image\":\"reg/app:1\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}},\"NodeNames\":[\"node-0\"]}",
        "{\"Pod\":{\"spec\":{\"containers\":[{\"image\":\"reg/app:1\"}]}},\"NodeNames\":[\"node-0\"");
    for (String body : bad) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(() -> previousPath(bytes)).as("previous path, %s", body).isInstanceOf(Exception.class);
      assertThatThrownBy(() -> streamed.prioritize(bytes)).as(body).isInstanceOf(InvalidArgument.class)
          .hasMessageNotContaining("Exception");
    }
  }

  /** {@code host=score} per entry, in order (a duplicated candidate appears twice). */
  List<String> answer(byte[] json) throws Exception {
    List<String> scores = new ArrayList<>();
    for (JsonNode entry : mapper.readTree(json)) {
      scores.add(entry.path("Host").textValue() + "=" + entry.path("Score").longValue());
    }
    return scores;
  }

  /** A request with the variations the class comment lists, drawn at random. */
  ObjectNode request(int i) {
    ObjectNode args = mapper.createObjectNode();
    List<String> candidates = new ArrayList<>();
    for (String name : KNOWN) {
      if (random.nextInt(4) > 0) {
        candidates.add(name);
      }
    }
    candidates.add(random.nextInt(candidates.size() + 1), "absent-" + random.nextInt(3));
    if (random.nextBoolean() && !candidates.isEmpty()) {
      candidates.add(candidates.get(random.nextInt(candidates.size())));
    }
    ObjectNode pod = mapper.valueToTree(pod(i));
    sprinkleUnknownFields(pod, 0);
    boolean nodeListForm = random.nextInt(4) == 0;
    List<Runnable> keys = new ArrayList<>(List.of(
        () -> args.set(spelling("Pod"), pod),
        () -> {
          if (nodeListForm) {
            ArrayNode items = args.putObject(spelling("Nodes")).put("kind", "NodeList").putArray("items");
            candidates.forEach(name -> items.addObject().put("kind", "Node").putObject("metadata").put("name", name)
                .put("uid", "u-" + name));
          } else if (random.nextBoolean()) {
            args.putNull(spelling("Nodes"));
          }
        },
        () -> {
          if (!nodeListForm) {
            candidates.forEach(args.putArray(spelling("NodeNames"))::add);
          } else if (random.nextBoolean()) {
            args.putNull(spelling("NodeNames"));
          }
        },
        () -> args.putObject("Extra").put("Unknown", true)));
    shuffle(keys);
    keys.forEach(Runnable::run);
    return args;
  }

  /** A pod of varied shape; named only now and then, so that some calls count it on a node and some do not. */
  Pod pod(int i) {
    var spec = new io.fabric8.kubernetes.api.model.PodSpecBuilder()
        .addToContainers(container("app", "reg/app:1", cpu()));
    switch (random.nextInt(5)) {
      case 0 -> spec.addToInitContainers(container("init", "reg/base:1", cpu()));
      case 1 -> spec.addToInitContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder(container("side", "reg/side:1", cpu()))
          .withRestartPolicy("Always").build(), container("init", "reg/base:1", cpu()));
      case 2 -> spec.addToOverhead("cpu", new io.fabric8.kubernetes.api.model.Quantity("120m"))
          .addToContainers(container("second", "reg/side:1", cpu()));
      case 3 -> spec.withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("1.5")).endResources();
      default -> spec.addToContainers(container("unknown-image", "reg/none:1", null));
    }
    var meta = new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withNamespace("apps");
    if (random.nextBoolean()) {
      meta.withName("pod-" + i).addToLabels("app", "x").addToAnnotations("note", "{\"nested\": [1, 2]}");
    }
    return new io.fabric8.kubernetes.api.model.PodBuilder().withMetadata(meta.build()).withSpec(spec.build())
        .withNewStatus().withPhase("Pending").endStatus().build();
  }

  Container container(String name, String image, String cpu) {
    var builder = new io.fabric8.kubernetes.api.model.ContainerBuilder().withName(name).withImage(image)
        .addNewEnv().withName("A").withValue("b").endEnv();
    if (cpu != null) {
      builder.withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity(cpu))
          .addToRequests("memory", new io.fabric8.kubernetes.api.model.Quantity("64Mi")).endResources();
    }
    return builder.build();
  }

  String cpu() {
    return List.of("100m", "250m", "0.5", "1", "2", "1500m", "333333u").get(random.nextInt(7));
  }

  /** Maps of strings or quantities in a v1.Pod, where a field of another type is not a v1.Pod any more. */
  static final Set<String> STRING_MAPS = Set.of("labels", "annotations", "requests", "limits", "overhead");

  /** Adds fields the extender does not read (scalars, objects, arrays, nulls) to objects at every depth. */
  void sprinkleUnknownFields(JsonNode node, int depth) {
    if (node instanceof ObjectNode object) {
      List<String> fields = new ArrayList<>();
      object.fieldNames().forEachRemaining(fields::add);
      fields.stream().filter(f -> !STRING_MAPS.contains(f)).forEach(f -> sprinkleUnknownFields(object.get(f), depth + 1));
      if (random.nextInt(3) == 0) {
        object.putObject("x-unknown-" + depth).put("deep", "v").putArray("list").addObject().put("k", 1);
        object.putNull("x-null-" + depth);
        object.putArray("x-array-" + depth).add("s").add(2.5).add(true);
      }
      reorder(object);
    } else if (node instanceof ArrayNode array) {
      array.forEach(element -> sprinkleUnknownFields(element, depth + 1));
    }
  }

  void reorder(ObjectNode object) {
    List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      entries.add(it.next());
    }
    shuffle(entries);
    object.removeAll();
    entries.forEach(e -> object.set(e.getKey(), e.getValue()));
  }

  <T> void shuffle(List<T> list) {
    for (int k = list.size() - 1; k > 0; k--) {
      int j = random.nextInt(k + 1);
      T t = list.get(k);
      list.set(k, list.get(j));
      list.set(j, t);
    }
  }

  /** kube-scheduler's Go decoder matches top-level keys in any case. */
  String spelling(String key) {
    return switch (random.nextInt(3)) {
      case 0 -> key;
      case 1 -> key.toLowerCase(Locale.ROOT);
      default -> key.toUpperCase(Locale.ROOT);
    };
  }

  /**
   * How the extender read a request before streaming: the top level as a tree with keys in any
   * case, the pod bound to a fabric8 {@code Pod} (unknown fields ignored), its CPU by
   * {@link PodCpu#millis(io.fabric8.kubernetes.api.model.PodSpec)}, every name a String.
   */
  List<String> previousPath(byte[] body) throws Exception {
    ObjectMapper binder = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    JsonNode tree = binder.readTree(body);
    Map<String, JsonNode> keys = new LinkedHashMap<>();
    tree.fields().forEachRemaining(e -> keys.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
    Pod pod = binder.treeToValue(keys.get("pod"), Pod.class);
    if (pod.getSpec().getContainers().isEmpty() || pod.getSpec().getContainers().stream().anyMatch(c -> c.getImage() == null)) {
      throw new IllegalArgumentException("no containers or no image");
    }
    List<String> names = new ArrayList<>();
    JsonNode nodeNames = keys.get("nodenames");
    if (nodeNames != null && !nodeNames.isNull()) {
      nodeNames.forEach(n -> names.add(nonEmpty(n)));
    } else {
      keys.get("nodes").path("items").forEach(n -> names.add(nonEmpty(n.path("metadata").path("name"))));
    }
    List<String> images = Stream.concat(pod.getSpec().getInitContainers().stream(), pod.getSpec().getContainers().stream())
        .map(Container::getImage).toList();
    var meta = pod.getMetadata();
    var request = new PodRequest(meta == null ? null : meta.getNamespace(), meta == null ? null : meta.getName(), images);
    var args = new ExtenderArgs(request, PodCpu.millis(pod.getSpec()), new CandidateNodes.Names(names));
    Priorities priorities = bound.prioritize(args, new CallBuffers(), true);
    List<String> scores = new ArrayList<>();
    for (int c = 0; c < priorities.hosts().size(); c++) {
      scores.add(priorities.hosts().get(c).string() + "=" + priorities.scores()[c]);
    }
    return scores;
  }

  static String nonEmpty(JsonNode name) {
    if (!name.isTextual() || name.asText().isEmpty()) {
      throw new IllegalArgumentException("not a name: " + name);
    }
    return name.asText();
  }
}
