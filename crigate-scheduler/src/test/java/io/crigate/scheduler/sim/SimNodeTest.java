package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimNodeTest {

  static final Layer BASE = new Layer(Digests.of("base"), 50);
  static final ImageLayers A = new ImageLayers("a:1", Digests.of("a"), List.of(BASE, new Layer(Digests.of("a#1"), 20)));
  static final ImageLayers B = new ImageLayers("b:1", Digests.of("b"), List.of(BASE, new Layer(Digests.of("b#1"), 30)));
  static final ImageLayers C = new ImageLayers("c:1", Digests.of("c"), List.of(new Layer(Digests.of("c#1"), 40)));

  static PodArrival pod(ImageLayers image) {
    return new PodArrival(0, "p", image.reference(), 100, 100, 10);
  }

  @Test
  void pullsOnlyLayersItLacks() {
    SimNode node = new SimNode("n", new NodeShape(1000, 1000, 1000, 85, 80));
    // a: 50 + 20 pulled; b shares the 50-byte base, so only its own 30
    assertThat(node.start(pod(A), A, 0)).isEqualTo(70);
    assertThat(node.start(pod(B), B, 1)).isEqualTo(30);
    assertThat(node.start(pod(A), A, 2)).isZero();
    assertThat(node.diskBytes()).isEqualTo(100);
  }

  @Test
  void collectsLeastRecentlyUsedUnusedImagesDownToLowThreshold() {
    // disk 160: high 85% = 136, low 50% = 80
    SimNode node = new SimNode("n", new NodeShape(1000, 1000, 160, 85, 50));
    node.start(pod(A), A, 0);
    node.stop(pod(A), 1);
    node.start(pod(B), B, 2);
    node.stop(pod(B), 3);
    // a+b = 50+20+30 = 100 (<= 136, no GC); c adds 40 -> 140 > 136: GC removes a (oldest, 20 freed,
    // base still used by b) -> 120 > 80, then b (50+30 freed) -> 40
    node.start(pod(C), C, 4);
    assertThat(node.diskBytes()).isEqualTo(40);
    assertThat(node.holds(BASE.digest())).isFalse();
    assertThat(node.imageStatus()).containsOnlyKeys("c:1");
  }

  @Test
  void neverCollectsAnImageARunningPodUses() {
    // disk 100: high 85, low 0: everything unused goes, running images stay
    SimNode node = new SimNode("n", new NodeShape(1000, 1000, 100, 85, 0));
    node.start(pod(A), A, 0);
    node.start(pod(C), C, 1);
    // 70 + 40 = 110 > 85, but a and c both run: nothing removed
    assertThat(node.diskBytes()).isEqualTo(110);
  }

  /**
   * With a publish delay, the scores see a pull's layers and image only once it has passed; layers
   * the node held before stay in view, and a layer GC removed is hidden again when pulled anew.
   */
  @Test
  void showsPulledLayersToTheScoresOnlyAfterThePublishDelay() {
    SimNode node = new SimNode("n", new NodeShape(1000, 1000, 160, 85, 50), 5);
    node.at(0);
    node.start(pod(A), A, 0);
    assertThat(node.holds(BASE.digest())).isFalse();
    assertThat(node.imageStatus()).isEmpty();
    node.at(5);
    assertThat(node.holds(BASE.digest())).isTrue();
    assertThat(node.imageStatus()).containsOnlyKeys("a:1");

    node.start(pod(B), B, 6);
    node.at(7);
    assertThat(node.holds(BASE.digest())).isTrue();
    assertThat(node.holds(Digests.of("b#1"))).isFalse();
    assertThat(node.imageStatus()).containsOnlyKeys("a:1");
    node.at(11);
    assertThat(node.holds(Digests.of("b#1"))).isTrue();
  }

  @Test
  void withoutAPublishDelayTheScoresSeeAPullAtOnce() {
    SimNode node = new SimNode("n", new NodeShape(1000, 1000, 160, 85, 50));
    node.at(0);
    node.start(pod(A), A, 0);
    assertThat(node.holds(BASE.digest())).isTrue();
    assertThat(node.imageStatus()).containsOnlyKeys("a:1");
  }
}
