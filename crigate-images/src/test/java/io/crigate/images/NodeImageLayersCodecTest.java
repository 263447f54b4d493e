package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeImageLayersCodecTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static String digest(int i) {
    return "sha256:%064x".formatted(i);
  }

  @Test
  void roundTripsAnInventory() {
    var inventory = new NodeLayerInventory("n1", Map.of(digest(1), 54917164L, digest(2), 114L), Set.of(digest(2)), NOW);

    NodeImageLayers resource = NodeImageLayersCodec.toResource(inventory);

    assertThat(resource.getMetadata().getName()).isEqualTo("n1");
    assertThat(resource.getSpec().truncated()).isFalse();
    assertThat(NodeImageLayersCodec.fromResource(resource)).isEqualTo(inventory);
  }

  @Test
  void anUnchangedInventorySerializesToIdenticalBytes() {
    var layers = new HashMap<String, Long>();
    for (int i = 0; i < 500; i++) {
      layers.put(digest(i), 1000L + i);
    }
    String first = Serialization.asJson(NodeImageLayersCodec.toResource(new NodeLayerInventory("n", layers, Set.of(), NOW)));
    String second = Serialization.asJson(NodeImageLayersCodec.toResource(new NodeLayerInventory("n", Map.copyOf(layers), Set.of(), NOW)));

    assertThat(first).isEqualTo(second);
  }

  record Case(String name, int layers, long size, boolean allPulling) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> worstCases() {
    return Stream.of(
        // 71-char digest + 11-digit size + 4 bytes of JSON punctuation = 86 bytes a layer
        new Case("100 GB layers", 20_000, 99_999_999_999L, false),
        // 19 digits is the longest a long prints: 94 bytes a layer
        new Case("largest sizes", 20_000, Long.MAX_VALUE, false),
        // every layer also listed in pulling: 94 + 74 = 168 bytes
        new Case("all pulling", 20_000, Long.MAX_VALUE, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("worstCases")
  void anOversizedInventoryKeepsItsLargestLayersWithinTheBudget(Case c) {
    var layers = new HashMap<String, Long>();
    var pulling = new HashSet<String>();
    for (int i = 0; i < c.layers(); i++) {
      layers.put(digest(i), c.size() - i);
      if (c.allPulling()) {
        pulling.add(digest(i));
      }
    }

    NodeImageLayersSpec spec = NodeImageLayersCodec.toResource(new NodeLayerInventory("n", layers, pulling, NOW)).getSpec();

    long bytes = Serialization.asJson(spec).getBytes(StandardCharsets.UTF_8).length;
    long perLayer = NodeImageLayersCodec.entryBytes(digest(0), c.size(), c.allPulling());
    System.out.printf("capacity[%s]: %d layers in %d spec bytes (%d bytes a layer, budget %d)%n",
        c.name(), spec.layers().size(), bytes, perLayer, NodeImageLayersCodec.DEFAULT_MAX_SPEC_BYTES);
    assertThat(spec.truncated()).isTrue();
    assertThat(bytes).isLessThanOrEqualTo(NodeImageLayersCodec.DEFAULT_MAX_SPEC_BYTES);
    assertThat(spec.layers()).hasSize(
        (int) ((NodeImageLayersCodec.DEFAULT_MAX_SPEC_BYTES - NodeImageLayersCodec.SPEC_FRAME_BYTES) / perLayer));
    // sizes fall with i, so the kept ones are exactly the first, largest ones
    assertThat(spec.layers()).containsKey(digest(0)).doesNotContainKey(digest(c.layers() - 1));
    assertThat(spec.pulling()).hasSize(c.allPulling() ? spec.layers().size() : 0);
  }
}
