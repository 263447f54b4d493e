package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
}
