package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulationTest {

  static final TraceParameters SMALL = new TraceParameters(300, 0.25, 600, 1.0);
  static final Experiment EXPERIMENT =
      new Experiment(new Simulation(6, NodeShape.DEFAULT, 100e6), 30, Experiment.ALL_SCORERS);

  @Test
  void sameSeedGivesSameResults() {
    List<SimResult> first = EXPERIMENT.generated(List.of(7L), SMALL, (task, pods) -> done -> {});
    List<SimResult> second = EXPERIMENT.generated(List.of(7L), SMALL, (task, pods) -> done -> {});
    assertThat(second).isEqualTo(first);
    // Were the seed ignored, another one would replay the same trace: it must not.
    List<SimResult> otherSeed = EXPERIMENT.generated(List.of(8L), SMALL, (task, pods) -> done -> {});
    assertThat(outcomes(otherSeed)).isNotEqualTo(outcomes(first));
  }

  /**
   * Each of the three random inputs follows the seed on its own, so ignoring it in any one of them
   * fails here even when the other two still make whole runs differ.
   */
  @Test
  void catalogTraceAndTieBreakingEachFollowTheSeed() {
    ImageCatalog catalog = ImageCatalog.generate(7, 30);
    assertThat(ImageCatalog.generate(7, 30)).isEqualTo(catalog);
    assertThat(ImageCatalog.generate(8, 30)).isNotEqualTo(catalog);

    List<PodArrival> trace = TraceGenerator.generate(7, SMALL, catalog);
    assertThat(TraceGenerator.generate(7, SMALL, catalog)).isEqualTo(trace);
    assertThat(TraceGenerator.generate(8, SMALL, catalog)).isNotEqualTo(trace);

    // same catalog and trace: only the tie-breaking differs between the seeds
    List<SimResult> ties7 = EXPERIMENT.onTrace(7, catalog, trace, (task, pods) -> done -> {});
    List<SimResult> ties8 = EXPERIMENT.onTrace(8, catalog, trace, (task, pods) -> done -> {});
    assertThat(outcomes(EXPERIMENT.onTrace(7, catalog, trace, (task, pods) -> done -> {}))).isEqualTo(outcomes(ties7));
    assertThat(outcomes(ties8)).isNotEqualTo(outcomes(ties7));
  }

  /** What a run produced, without the seed that names it. */
  private static List<List<Object>> outcomes(List<SimResult> results) {
    return results.stream().map(r -> List.<Object>of(r.scorer(), r.bytesPulled(), r.pulls(), r.meanStartSeconds(),
        r.p95StartSeconds(), r.podsPerNodeCv())).toList();
  }

  @Test
  void csvTraceRoundTripsAndReplaysLikeTheGeneratedOne(@TempDir Path dir) throws Exception {
    ImageCatalog catalog = ImageCatalog.generate(3, 30);
    List<PodArrival> trace = TraceGenerator.generate(3, SMALL, catalog);
    Path file = dir.resolve("trace.csv");
    TraceCsv.write(file, trace);
    List<SimResult> fromFile = EXPERIMENT.onTrace(3, catalog, TraceCsv.read(file), (task, pods) -> done -> {});
    List<SimResult> generated = EXPERIMENT.generated(List.of(3L), SMALL, (task, pods) -> done -> {});
    // CSV keeps milliseconds, enough for an identical placement sequence
    assertThat(fromFile).extracting(SimResult::bytesPulled).isEqualTo(generated.stream().map(SimResult::bytesPulled).toList());
  }

  @Test
  void malformedTraceLineIsNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.csv");
    Files.writeString(file, TraceCsv.HEADER + "\n1.0,p,app-001:1,100,abc,5\n");
    assertThatThrownBy(() -> TraceCsv.read(file))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("bad.csv:2");
  }

  @Test
  void unknownImageIsRejectedBeforeRunning() {
    ImageCatalog catalog = ImageCatalog.generate(1, 5);
    var pod = new PodArrival(0, "p", "nope:1", 100, 100, 1);
    assertThatThrownBy(() -> EXPERIMENT.onTrace(1, catalog, List.of(pod), (task, pods) -> done -> {}))
        .hasMessageContaining("nope:1");
  }

  @Test
  void coefficientOfVariationOfPodsPerNode() {
    SimNode a = new SimNode("a", NodeShape.DEFAULT);
    SimNode b = new SimNode("b", NodeShape.DEFAULT);
    a.pods = 3;
    b.pods = 1;
    // mean 2, standard deviation 1 -> 0.5
    assertThat(Simulation.coefficientOfVariation(List.of(a, b), n -> n.pods)).isEqualTo(0.5);
  }
  /**
   * One node with room for one pod, whose image (600 bytes) takes 4 s to pull plus 0.5 s of start:
   * a second pod arriving at 11 s finds the node free when the first pod's 10 s run from its
   * arrival, and full when they run from its start (4.5 s later), until 14.5 s.
   */
  @Test
  void aPodThatHoldsItsNodeThroughItsStartLeavesItThatMuchLater() {
    ImageCatalog catalog = new ImageCatalog(List.of(FewestMissingWithinSlackTest.APP));
    NodeShape shape = FewestMissingWithinSlackTest.SHAPE;
    Placement onlyNode = Placement.fixed("only node", Map.of("first", 0, "second", 0));
    PodStart reported = new PodStart(150, 0.5, false);
    PodStart held = new PodStart(150, 0.5, true);

    SimResult free = new Simulation(1, shape, reported, 0).run(onlyNode, 1, twoPods(11), catalog, done -> {});
    assertThat(free.unschedulable()).isZero();
    assertThat(free.meanStartSeconds()).isEqualTo((4.5 + 0.5) / 2);

    SimResult stillHeld = new Simulation(1, shape, held, 0).run(onlyNode, 1, twoPods(11), catalog, done -> {});
    assertThat(stillHeld.unschedulable()).isEqualTo(1);
    assertThat(stillHeld.meanStartSeconds()).isEqualTo(4.5);

    SimResult released = new Simulation(1, shape, held, 0).run(onlyNode, 1, twoPods(14.5), catalog, done -> {});
    assertThat(released.unschedulable()).isZero();
  }

  /** Two pods of the whole node's CPU, the first at 0 s, each running 10 s. */
  private static List<PodArrival> twoPods(double secondAt) {
    String image = FewestMissingWithinSlackTest.APP.reference();
    return List.of(new PodArrival(0, "first", image, 1000, 100, 10), new PodArrival(secondAt, "second", image, 1000, 100, 10));
  }

  @Test
  void aStartNeedsAPullRateAndNoNegativeOverhead() {
    assertThatThrownBy(() -> new PodStart(0, 0, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pull rate");
    assertThatThrownBy(() -> new PodStart(1, -1, true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overhead");
  }
}
