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
  void answersPerCandidateWhichPodLayersItHolds() {
    LayerIndex index = new LayerIndex();
    index.put(inventory("a", X, Y));
    index.put(inventory("b", X));
    List<boolean[]> held = index.held(POD, List.of("a", "b", "unknown"));
    // X on a and b, Y on a only; a node that publishes nothing holds nothing
    assertThat(held.get(0)).containsExactly(true, true);
    assertThat(held.get(1)).containsExactly(true, false);
    assertThat(held.get(2)).containsExactly(false, false);
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
    List<boolean[]> held = index.held(POD, List.of("a", "c"));
    assertThat(held.get(0)).containsExactly(true, false);
    assertThat(held.get(1)).containsExactly(false, false);
    assertThat(index.publishes("b")).isFalse();
    assertThat(index.nodes()).isEqualTo(2);
  }
}
