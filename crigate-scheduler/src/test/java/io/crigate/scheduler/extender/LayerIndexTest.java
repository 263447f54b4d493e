package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.PodLayers;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LayerIndexTest {

  static final Layer X = new Layer("sha256:" + "a".repeat(64), 10);
  static final Layer Y = new Layer("sha256:" + "b".repeat(64), 20);
  static final PodLayers POD = PodLayers.of(List.of(new ImageLayers("p:1", "sha256:" + "c".repeat(64), List.of(X, Y))));

  static NodeLayerInventory inventory(String node, Layer... layers) {
    Map<String, Long> held = new java.util.HashMap<>();
    for (Layer layer : layers) {
      held.put(layer.digest(), layer.size());
    }
    return new NodeLayerInventory(node, held, Set.of(), Instant.EPOCH);
  }

  @Test
  void answersPerCandidateTheBytesOfPodLayersItLacks() {
    LayerIndex index = new LayerIndex();
    index.put(inventory("a", X, Y));
    index.put(inventory("b", X));
    // X (10 bytes) on a and b, Y (20 bytes) on a only; a node that publishes nothing holds nothing
    assertThat(index.missingBytes(POD, List.of("a", "b", "unknown"), new long[3])).containsExactly(0, 20, 30);
  }

  @Test
  void updateReplacesANodesLayersAndRemovalForgetsIt() {
    LayerIndex index = new LayerIndex();
    index.put(inventory("a", X, Y));
    index.put(inventory("b", Y));
    index.put(inventory("a", X));
    index.remove("b");
    // b's number is free again; c reuses it and must not inherit b's Y
    index.put(inventory("c"));
    assertThat(index.missingBytes(POD, List.of("a", "c"), new long[2])).containsExactly(20, 30);
    assertThat(index.publishes("b")).isFalse();
    assertThat(index.nodes()).isEqualTo(2);
  }
}
