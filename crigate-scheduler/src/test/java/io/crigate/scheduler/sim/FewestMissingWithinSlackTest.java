package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FewestMissingWithinSlackTest {

  static final NodeShape SHAPE = new NodeShape(1000, 10_000, 10_000, 85, 80);
  static final Layer BASE = new Layer(Digests.of("base"), 500);
  static final ImageLayers APP = new ImageLayers("app:1", Digests.of("app"), List.of(BASE, new Layer(Digests.of("app#1"), 100)));
  static final ImageLayers OTHER = new ImageLayers("other:1", Digests.of("other"), List.of(BASE, new Layer(Digests.of("other#1"), 50)));

  /** A node with {@code cpuMillis} requested by one running pod of {@code image}. */
  static SimNode running(String name, ImageLayers image, int cpuMillis) {
    SimNode node = new SimNode(name, SHAPE);
    node.start(new PodArrival(0, name + "-pod", image.reference(), cpuMillis, 100, 100), image, 0);
    return node;
  }

  static SimNode choose(double slack, List<SimNode> nodes) {
    PodArrival pod = new PodArrival(1, "p", APP.reference(), 100, 100, 10);
    return Placement.fewestMissingWithinSlack(slack).choose(pod, APP, nodes, nodes, new SplittableRandom(1));
  }

  @Test
  void slackZeroPlacesOnTheLeastRequestedNodeWhateverItHolds() {
    SimNode holder = running("holder", APP, 300);
    SimNode empty = new SimNode("empty", SHAPE);
    assertThat(choose(0, List.of(holder, empty))).isSameAs(empty);
  }

  @Test
  void followsTheFewestMissingBytesWithinTheSlack() {
    SimNode holder = running("holder", APP, 300);
    SimNode baseOnly = running("base-only", OTHER, 100);
    SimNode empty = new SimNode("empty", SHAPE);
    // 0.3 above the least requested: the holder (misses nothing) is within a slack of 0.3
    assertThat(choose(0.3, List.of(empty, baseOnly, holder))).isSameAs(holder);
    // within 0.1 only the empty node and the one holding the base: the base saves 500 bytes
    assertThat(choose(0.1, List.of(empty, baseOnly, holder))).isSameAs(baseOnly);
  }

  @Test
  void equalBytesGoToTheLessRequestedNode() {
    SimNode busier = running("busier", OTHER, 400);
    SimNode idler = running("idler", OTHER, 200);
    assertThat(choose(1, List.of(busier, idler))).isSameAs(idler);
  }

  @Test
  void negativeSlackIsRefused() {
    assertThatThrownBy(() -> Placement.fewestMissingWithinSlack(-0.1)).hasMessageContaining("slack");
  }
}
