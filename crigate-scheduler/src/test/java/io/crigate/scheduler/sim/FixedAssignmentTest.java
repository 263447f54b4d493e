package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FixedAssignmentTest {

  static final NodeShape SHAPE = FewestMissingWithinSlackTest.SHAPE;

  static List<SimNode> cluster(int... requestedCpu) {
    List<SimNode> nodes = new ArrayList<>();
    for (int i = 0; i < requestedCpu.length; i++) {
      nodes.add(requestedCpu[i] == 0 ? new SimNode("node-%02d".formatted(i), SHAPE)
          : FewestMissingWithinSlackTest.running("node-%02d".formatted(i), FewestMissingWithinSlackTest.APP, requestedCpu[i]));
    }
    return nodes;
  }

  static SimNode choose(Map<String, Integer> assignment, String pod, List<SimNode> cluster, List<SimNode> candidates) {
    PodArrival arrival = new PodArrival(1, pod, FewestMissingWithinSlackTest.APP.reference(), 100, 100, 10);
    return Placement.fixed("fixed", assignment)
        .choose(arrival, FewestMissingWithinSlackTest.APP, cluster, candidates, new SplittableRandom(1));
  }

  @Test
  void placesEachPodOnItsAssignedNodeWhateverItsLoad() {
    List<SimNode> cluster = cluster(100, 0, 800);
    assertThat(choose(Map.of("p", 2), "p", cluster, cluster)).isSameAs(cluster.get(2));
    assertThat(choose(Map.of("p", 0), "p", cluster, cluster)).isSameAs(cluster.get(0));
  }

  @Test
  void fallsBackToTheLeastRequestedCandidateWhenTheAssignedNodeDoesNotFit() {
    List<SimNode> cluster = cluster(300, 200, 950);
    // node-02 is not a candidate (full): the least requested of the others, not the first
    assertThat(choose(Map.of("p", 2), "p", cluster, cluster.subList(0, 2))).isSameAs(cluster.get(1));
  }

  @Test
  void anUnassignedPodGoesToTheLeastRequestedCandidateTheLowestIndexAmongEquals() {
    List<SimNode> cluster = cluster(300, 200, 200);
    assertThat(choose(Map.of("other", 0), "p", cluster, cluster)).isSameAs(cluster.get(1));
  }

  /** A recorded run replayed as an assignment is the same run: the search can edit scorers' runs. */
  @Test
  void aRecordedRunReplaysExactly() {
    ImageCatalog catalog = ImageCatalog.generate(5, 12);
    List<PodArrival> trace = TraceGenerator.generate(5, new TraceParameters(80, 0.5, 40, 1.0), catalog);
    NodeShape shape = new NodeShape(4000, 16 * 1024, 600_000_000L, 85, 80);
    Simulation simulation = new Simulation(4, shape, 100e6);
    RecordedPlacement recorded = new RecordedPlacement(Placement.scored("layer-locality", shape));
    SimResult original = simulation.run(recorded, 5, trace, catalog, done -> {});
    SimResult replayed = simulation.run(Placement.fixed("replay", recorded.assignment()), 5, trace, catalog, done -> {});
    assertThat(original.bytesPulled()).isPositive();
    assertThat(replayed).usingRecursiveComparison().ignoringFields("scorer").isEqualTo(original);
    assertThat(replayed.scorer()).isEqualTo("replay");
  }

  /** Four pods of one image: all on one node make one (image, node) pair, spread over three nodes three. */
  @Test
  void countsTheDistinctImageAndNodePairsThatStartedAPod() {
    ImageCatalog catalog = new ImageCatalog(List.of(FewestMissingWithinSlackTest.APP));
    List<PodArrival> trace = java.util.stream.IntStream.range(0, 4).mapToObj(i -> new PodArrival(i, "p" + i,
        FewestMissingWithinSlackTest.APP.reference(), 100, 100, 100)).toList();
    Simulation simulation = new Simulation(3, SHAPE, 100e6);
    SimResult together = simulation.run(Placement.fixed("together", Map.of("p0", 1, "p1", 1, "p2", 1, "p3", 1)), 1,
        trace, catalog, done -> {});
    SimResult spread = simulation.run(Placement.fixed("spread", Map.of("p0", 0, "p1", 1, "p2", 2, "p3", 0)), 1,
        trace, catalog, done -> {});
    assertThat(together.imageNodePairs()).isEqualTo(1);
    assertThat(spread.imageNodePairs()).isEqualTo(3);
    assertThat(spread.pulls()).isEqualTo(3);
  }
}
