package io.crigate.scheduler.sim;

import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.APP;
import static io.crigate.scheduler.sim.FewestMissingWithinSlackTest.OTHER;
import static io.crigate.scheduler.sim.LookaheadSearchTest.BYTES_ONLY;
import static io.crigate.scheduler.sim.LookaheadSearchTest.CATALOG;
import static io.crigate.scheduler.sim.LookaheadSearchTest.SIMULATION;
import static io.crigate.scheduler.sim.LookaheadSearchTest.TRACE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpectedNextArrivalTest {

  static Map<String, Integer> place(List<PodArrival> trace) {
    return place(trace, false);
  }

  static Map<String, Integer> place(List<PodArrival> trace, boolean knowsPopularity) {
    return new ExpectedNextArrival(SIMULATION, knowsPopularity).search("expected", 3, trace, CATALOG, BYTES_ONLY)
        .assignment();
  }

  /**
   * At {@code b} half the arrivals so far were APP (600 m) and half OTHER (400 m). Beside {@code a},
   * b saves APP's base but leaves a next pod of either image to pull on the other node (1225 bytes
   * expected); on the other node it leaves room on a's node for OTHER and on its own for APP (1200).
   */
  @Test
  void keepsTheHolderFreeForWhatUsuallyComesNext() {
    Map<String, Integer> nodes = place(TRACE.subList(0, 2));

    assertThat(nodes.get("b")).isNotEqualTo(nodes.get("a"));
  }

  /** With only OTHER pods before it, the next pod is expected to be OTHER, which fits beside b anyway. */
  @Test
  void followsTheLayersWhenWhatComesNextFitsEitherWay() {
    List<PodArrival> trace = List.of(new PodArrival(0, "o1", OTHER.reference(), 100, 100, 100),
        new PodArrival(1, "o2", OTHER.reference(), 100, 100, 100),
        new PodArrival(2, "app", APP.reference(), 300, 100, 100));
    Map<String, Integer> nodes = place(trace);

    assertThat(nodes.get("o2")).isEqualTo(nodes.get("o1"));
    assertThat(nodes.get("app")).isEqualTo(nodes.get("o1"));
  }

  /**
   * The trace of {@link #followsTheLayersWhenWhatComesNextFitsEitherWay}, then twenty APP pods of
   * 600 m once the first three have ended. From the past, the next pod is most likely a small OTHER,
   * so {@code app} joins the OTHER pods for the shared base (100 bytes). Knowing that nine pods in ten
   * are APP at ~590 m, it keeps away: beside the OTHER pods it would leave no node both holding APP
   * and with room for the next one, which would pull all of APP again (600 bytes at 0.91).
   */
  @Test
  void knowingThePopularityKeepsRoomForThePopularImage() {
    List<PodArrival> trace = new ArrayList<>(List.of(new PodArrival(0, "o1", OTHER.reference(), 100, 100, 100),
        new PodArrival(1, "o2", OTHER.reference(), 100, 100, 100),
        new PodArrival(2, "app", APP.reference(), 300, 100, 100)));
    for (int i = 0; i < 20; i++) {
      trace.add(new PodArrival(200 + i, "later-" + i, APP.reference(), 600, 100, 1));
    }

    assertThat(place(trace, false).get("app")).isEqualTo(place(trace, false).get("o1"));
    Map<String, Integer> knowing = place(trace, true);
    assertThat(knowing.get("o2")).isEqualTo(knowing.get("o1"));
    assertThat(knowing.get("app")).isNotEqualTo(knowing.get("o1"));
  }

  @Test
  void placesOnlyOnNodesThePodFits() {
    List<PodArrival> full = List.of(new PodArrival(0, "big", APP.reference(), 900, 100, 100),
        new PodArrival(1, "next", APP.reference(), 400, 100, 100));
    Map<String, Integer> nodes = place(full);

    assertThat(nodes.get("next")).isNotEqualTo(nodes.get("big"));
  }
}
