package io.crigate.scheduler.sim;

import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.SHAPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PricedBalanceTest {

  /** Large enough that the bytes cost the score's points (20 MB a point). */
  static final ImageLayers BIG = new ImageLayers("big:1", Digests.of("big"),
      List.of(new Layer(Digests.of("big-base"), 200_000_000L), new Layer(Digests.of("big#1"), 100_000_000L)));

  static SimNode choose(double bytesPerCv, List<SimNode> nodes) {
    PodArrival pod = new PodArrival(1, "p", BIG.reference(), 100, 100, 10);
    return Placement.pricedBalance(bytesPerCv, 0.1, SHAPE).choose(pod, BIG, nodes, nodes, new SplittableRandom(1));
  }

  static SimNode holder() {
    SimNode node = new SimNode("holder", SHAPE);
    node.start(new PodArrival(0, "held", BIG.reference(), 300, 100, 100), BIG, 0);
    return node;
  }

  /** Free balance: the holder saves 300 MB, worth the five points that outweigh its higher load in the resource scores. */
  @Test
  void withoutAPriceFollowsTheBytes() {
    SimNode holder = holder();
    assertThat(choose(0, List.of(new SimNode("empty", SHAPE), holder))).isSameAs(holder);
  }

  /** At 1 TB a unit of CV, the holder's 0.5 more CV of CPU outweighs every byte. */
  @Test
  void aHighPriceSpreadsPodsWhateverTheyPull() {
    SimNode empty = new SimNode("empty", SHAPE);
    assertThat(choose(1e12, List.of(empty, holder()))).isSameAs(empty);
  }

  @Test
  void negativePricesAreRefused() {
    assertThatThrownBy(() -> Placement.pricedBalance(-1, 0.1, SHAPE)).hasMessageContaining("bytesPerCv");
    assertThatThrownBy(() -> Placement.pricedBalance(1, -0.1, SHAPE)).hasMessageContaining("podsShare");
  }
}
