package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WeightedLoadBlindTest {

  static final NodeShape SHAPE = new NodeShape(4000, 16_000, 10_000_000_000L, 85, 80);
  static final ImageLayers APP = new ImageLayers("app:1", Digests.of("app"),
      List.of(new Layer(Digests.of("app#1"), 100_000_000L)));

  static SimNode node(String name, int cpuMillis, ImageLayers image) {
    SimNode node = new SimNode(name, SHAPE);
    node.start(new PodArrival(0, name + "-pod", image.reference(), cpuMillis, 1000, 100), image, 0);
    return node;
  }

  static SimNode choose(double weight, List<SimNode> nodes) {
    PodArrival pod = new PodArrival(1, "p", APP.reference(), 500, 1000, 10);
    return Placement.loadBlindLayers(weight, SHAPE).choose(pod, APP, nodes, nodes, new SplittableRandom(1));
  }

  @Test
  void theWeightDecidesBetweenTheHolderAndAnEmptierNode() {
    ImageLayers other = new ImageLayers("other:1", Digests.of("other"), List.of(new Layer(Digests.of("other#1"), 1)));
    // the holder runs 1.5 cores more: LeastAllocated and BalancedAllocation favour the other node by 37 points
    // (174 to 137); the 100 MB it misses cost it 50 layer points at weight 1, 25 at weight 0.5
    SimNode holder = node("holder", 2000, APP);
    SimNode emptier = node("emptier", 500, other);
    assertThat(choose(0, List.of(holder, emptier))).isSameAs(emptier);
    assertThat(choose(0.5, List.of(holder, emptier))).isSameAs(emptier);
    assertThat(choose(1, List.of(holder, emptier))).isSameAs(holder);
  }

  @Test
  void negativeWeightIsRefused() {
    assertThatThrownBy(() -> Placement.loadBlindLayers(-1, SHAPE)).hasMessageContaining("weight");
  }
}
