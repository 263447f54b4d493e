package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import org.junit.jupiter.api.Test;

class PullLowerBoundTest {

  static final NodeShape SHAPE = new NodeShape(4000, 16_000, 1_000_000_000L, 85, 80);
  static final Layer BASE = new Layer(Digests.of("base"), 100);
  static final ImageLayers A = new ImageLayers("a:1", Digests.of("a"), List.of(BASE, new Layer(Digests.of("a#1"), 10)));
  static final ImageLayers B = new ImageLayers("b:1", Digests.of("b"), List.of(BASE, new Layer(Digests.of("b#1"), 20)));
  static final ImageCatalog CATALOG = new ImageCatalog(List.of(A, B));

  static PodArrival pod(double at, ImageLayers image, int cpuMillis, long memoryMib, double duration) {
    return new PodArrival(at, "p" + at, image.reference(), cpuMillis, memoryMib, duration);
  }

  @Test
  void podsThatCannotShareANodeNeedTheirLayersOnAsManyNodes() {
    // two 3-core pods of a overlap, so two nodes hold a's layers; b's pod runs beside them
    PullLowerBound bound = PullLowerBound.of(List.of(pod(0, A, 3000, 100, 10), pod(1, A, 3000, 100, 10),
        pod(2, B, 500, 100, 10)), CATALOG, SHAPE, 5);
    assertThat(bound.eachLayerOnce()).isEqualTo(100 + 10 + 20);
    // base: 6.5 cores at once -> 2 nodes; a#1: 6 cores -> 2; b#1: 1
    assertThat(bound.concurrency()).isEqualTo(2 * 100 + 2 * 10 + 20);
  }

  @Test
  void podsOneAfterTheOtherNeedOneNode() {
    // the second starts when the first ends: never together
    PullLowerBound bound = PullLowerBound.of(List.of(pod(0, A, 3000, 100, 10), pod(10, A, 3000, 100, 10)),
        CATALOG, SHAPE, 5);
    assertThat(bound.concurrency()).isEqualTo(110);
  }

  @Test
  void memoryCountsAsCpuDoes() {
    PullLowerBound bound = PullLowerBound.of(List.of(pod(0, A, 100, 12_000, 10), pod(1, A, 100, 12_000, 10)),
        CATALOG, SHAPE, 5);
    assertThat(bound.concurrency()).isEqualTo(2 * 110);
  }

  @Test
  void neverMoreNodesThanTheClusterHas() {
    List<PodArrival> pods = List.of(pod(0, A, 4000, 100, 10), pod(1, A, 4000, 100, 10), pod(2, A, 4000, 100, 10));
    assertThat(PullLowerBound.of(pods, CATALOG, SHAPE, 2).concurrency()).isEqualTo(2 * 110);
  }

  /** Every placement the simulator runs pulls at least the bound, on traces where every pod was placed. */
  @Test
  void noSimulatedPlacementPullsLessThanTheBound() {
    NodeShape small = new NodeShape(4000, 16 * 1024, 600_000_000L, 85, 80);
    Simulation simulation = new Simulation(5, small, 100e6);
    int checked = 0;
    for (long seed = 1; seed <= 5; seed++) {
      ImageCatalog catalog = ImageCatalog.generate(seed, 15);
      List<PodArrival> trace = TraceGenerator.generate(seed, new TraceParameters(60, 1, 3.75 * 5, 1.0), catalog);
      PullLowerBound bound = PullLowerBound.of(trace, catalog, small, 5);
      assertThat(bound.concurrency()).isGreaterThan(bound.eachLayerOnce());
      for (Placement placement : List.of(Placement.scored("resources-only", small), Placement.scored("layer-locality", small),
          Placement.fewestMissingWithinSlack(1))) {
        SimResult result = simulation.run(placement, seed, trace, catalog, done -> {});
        if (result.unschedulable() == 0) {
          assertThat(result.bytesPulled()).as("%s seed %d", placement.name(), seed).isGreaterThanOrEqualTo(bound.concurrency());
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(5);
  }
}
