package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class HindsightSearchTest {

  static final NodeShape SHAPE = new NodeShape(2000, 8 * 1024, 600_000_000L, 85, 80);

  @Test
  void neverReturnsWorseThanItsBestStart() {
    Simulation simulation = new Simulation(3, SHAPE, 100e6);
    for (long seed = 1; seed <= 4; seed++) {
      ImageCatalog catalog = ImageCatalog.generate(seed, 10);
      List<PodArrival> trace = TraceGenerator.generate(seed, new TraceParameters(30, 0.5, 20, 1.0), catalog);
      List<Placement> starts = List.of(Placement.scored("image-locality", SHAPE), Placement.scored("layer-locality", SHAPE));
      List<SimResult> started = starts.stream().map(p -> simulation.run(p, 7, trace, catalog, done -> {})).toList();
      // priced low against the annealing's temperatures, so the search wanders off its starts: it must
      // still return the best it met
      SearchObjective objective = new SearchObjective(1e-11, 0.02, 0.01,
          started.stream().mapToInt(SimResult::unschedulable).min().orElseThrow());
      double bestStart = started.stream().filter(objective::admits).mapToDouble(objective::value).min().orElseThrow();

      HindsightSearch.Found found = new HindsightSearch(simulation, 60, 2, 1)
          .search("hindsight", 7, trace, catalog, starts, objective);

      assertThat(found.objective()).isLessThanOrEqualTo(bestStart);
      assertThat(objective.admits(found.result())).isTrue();
      // what it reports is what its assignment does when replayed
      assertThat(simulation.run(Placement.fixed("hindsight", found.assignment()), 7, trace, catalog, done -> {}))
          .isEqualTo(found.result());
    }
  }

  /** Two overlapping pods of one image, room for both on one node: the best pulls the image once. */
  @Test
  void findsTheOneNodePlacementResourcesOnlySpreads() {
    ImageLayers app = FewestMissingWithinSlackTest.APP;
    ImageCatalog catalog = new ImageCatalog(List.of(app));
    List<PodArrival> trace = List.of(new PodArrival(0, "a", app.reference(), 100, 100, 100),
        new PodArrival(1, "b", app.reference(), 100, 100, 100));
    Simulation simulation = new Simulation(2, FewestMissingWithinSlackTest.SHAPE, 1e6);
    Placement spreads = Placement.scored("resources-only", FewestMissingWithinSlackTest.SHAPE);
    assertThat(simulation.run(spreads, 3, trace, catalog, done -> {}).bytesPulled()).isEqualTo(2 * app.totalSize());

    HindsightSearch.Found found = new HindsightSearch(simulation, 40, 1, 1)
        .search("hindsight", 3, trace, catalog, List.of(spreads), new SearchObjective(1.0 / app.totalSize(), 0, 0, 0));

    assertThat(found.result().bytesPulled()).isEqualTo(app.totalSize());
    assertThat(found.assignment().get("a")).isEqualTo(found.assignment().get("b"));
    assertThat(found.result().scorer()).isEqualTo("hindsight");
  }

  @Test
  void sameInputsGiveTheSameAssignment() {
    Simulation simulation = new Simulation(3, SHAPE, 100e6);
    ImageCatalog catalog = ImageCatalog.generate(2, 10);
    List<PodArrival> trace = TraceGenerator.generate(2, new TraceParameters(30, 0.5, 20, 1.0), catalog);
    List<Placement> starts = List.of(Placement.scored("image-locality", SHAPE));
    SearchObjective objective = new SearchObjective(1e-9, 1, 1, 5);
    Map<String, Integer> first = new HindsightSearch(simulation, 80, 1, 1)
        .search("h", 2, trace, catalog, starts, objective).assignment();
    assertThat(new HindsightSearch(simulation, 80, 1, 1).search("h", 2, trace, catalog, starts, objective).assignment())
        .isEqualTo(first);
  }

  @Test
  void leavesThePodsBeforeTheFirstFreeWhereTheStartPutThem() {
    Simulation simulation = new Simulation(3, SHAPE, 100e6);
    ImageCatalog catalog = ImageCatalog.generate(3, 10);
    List<PodArrival> trace = TraceGenerator.generate(3, new TraceParameters(30, 0.5, 20, 1.0), catalog);
    Placement start = Placement.scored("resources-only", SHAPE);
    RecordedPlacement recorded = new RecordedPlacement(start);
    simulation.run(recorded, 3, trace, catalog, done -> {});
    int firstFree = 20;

    Map<String, Integer> found = new HindsightSearch(simulation, 200, 1, 1)
        .search("h", 3, trace, catalog, List.of(start), new SearchObjective(1e-9, 0, 0, 30), firstFree).assignment();

    for (PodArrival pod : trace.subList(0, firstFree)) {
      assertThat(found.get(pod.pod())).as(pod.pod()).isEqualTo(recorded.assignment().get(pod.pod()));
    }
    // the search did move some of the free ones: bytes alone are priced, and resources-only spreads
    assertThat(trace.subList(firstFree, trace.size()).stream()
        .filter(pod -> !Objects.equals(found.get(pod.pod()), recorded.assignment().get(pod.pod())))).isNotEmpty();
  }
}
