package io.crigate.scheduler.sim;

import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.APP;
import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.OTHER;
import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.SHAPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LookaheadSearchTest {

  /**
   * Two nodes of 1000 m. {@code b} shares APP's base, so with only the past in view it joins {@code a}
   * and saves the base; that fills the node, and {@code c}, another APP pod, must then pull all of APP
   * on the other node. Seeing {@code c} coming, {@code b} goes to the other node instead.
   */
  static final List<PodArrival> TRACE = List.of(
      new PodArrival(0, "a", APP.reference(), 600, 100, 100),
      new PodArrival(1, "b", OTHER.reference(), 400, 100, 100),
      new PodArrival(2, "c", APP.reference(), 400, 100, 100));
  static final ImageCatalog CATALOG = new ImageCatalog(List.of(APP, OTHER));
  static final Simulation SIMULATION = new Simulation(2, SHAPE, 1e6);
  static final SearchObjective BYTES_ONLY = new SearchObjective(1.0 / 1000, 0, 0, 0);
  static final Placement ONLINE = Placement.scored("layer-locality", SHAPE);

  static HindsightSearch.Found search(int lookahead, List<PodArrival> trace) {
    return new LookaheadSearch(SIMULATION, lookahead, true, 40, 1).search("lookahead", 3, trace, CATALOG, ONLINE, BYTES_ONLY);
  }

  @Test
  void seeingTheNextArrivalKeepsTheHolderFreeForIt() {
    HindsightSearch.Found blind = search(1, TRACE);
    HindsightSearch.Found seeing = search(2, TRACE);

    // with only the past in view b takes the base beside a; c then pulls APP again elsewhere:
    // APP twice (600 each) and OTHER's own layer (50)
    assertThat(blind.assignment().get("b")).isEqualTo(blind.assignment().get("a"));
    assertThat(blind.result().bytesPulled()).isEqualTo(1250);
    // seeing c, b keeps away, and c joins a
    assertThat(seeing.assignment().get("b")).isNotEqualTo(seeing.assignment().get("a"));
    assertThat(seeing.assignment().get("c")).isEqualTo(seeing.assignment().get("a"));
    assertThat(seeing.result().bytesPulled()).isEqualTo(1150);
    // what it reports is what its assignment does when replayed
    assertThat(SIMULATION.run(Placement.fixed("lookahead", seeing.assignment()), 3, TRACE, CATALOG, done -> {}))
        .isEqualTo(seeing.result());
  }

  @Test
  void aPodsDecisionDependsOnNothingBeyondItsWindow() {
    List<PodArrival> withoutC = TRACE.subList(0, 2);
    assertThat(search(1, withoutC).assignment()).isEqualTo(
        Map.of("a", search(1, TRACE).assignment().get("a"), "b", search(1, TRACE).assignment().get("b")));
  }

  /** As {@link #TRACE}, but {@code a} ends before {@code c} arrives, leaving its node room and its layers. */
  @Test
  void withoutDurationsARunningPodIsTakenToStay() {
    List<PodArrival> aEndsEarly = List.of(new PodArrival(0, "a", APP.reference(), 600, 100, 1.5), TRACE.get(1), TRACE.get(2));

    Map<String, Integer> knowing = new LookaheadSearch(SIMULATION, 2, true, 40, 1)
        .search("lookahead", 3, aEndsEarly, CATALOG, ONLINE, BYTES_ONLY).assignment();
    HindsightSearch.Found guessing = new LookaheadSearch(SIMULATION, 2, false, 40, 1)
        .search("lookahead", 3, aEndsEarly, CATALOG, ONLINE, BYTES_ONLY);

    // knowing that a ends first, b takes the base beside it, and c still finds APP's node free
    assertThat(knowing.get("b")).isEqualTo(knowing.get("a"));
    assertThat(knowing.get("c")).isEqualTo(knowing.get("a"));
    // not knowing, b keeps away from a's node as if a stayed; c, arriving after a ended, sees that it did
    assertThat(guessing.assignment().get("b")).isNotEqualTo(guessing.assignment().get("a"));
    assertThat(guessing.assignment().get("c")).isEqualTo(guessing.assignment().get("a"));
    assertThat(guessing.result().bytesPulled()).isEqualTo(1150);
  }

  @Test
  void lookaheadAndBudgetMustBePositive() {
    assertThatThrownBy(() -> new LookaheadSearch(SIMULATION, 0, true, 10, 1)).hasMessageContaining("lookahead");
    assertThatThrownBy(() -> new LookaheadSearch(SIMULATION, 1, true, 0, 1)).hasMessageContaining("evaluationsPerPod");
  }
}
