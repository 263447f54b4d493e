package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PairedLatencyTest {

  @Test
  void everyRoundCallsEachSideOnce() {
    int calls = 6;
    int[] order = PairedLatency.callOrder(calls, 50, 1);
    assertThat(order).hasSize(6 * 50);
    for (int round = 0; round < 50; round++) {
      int[] one = Arrays.copyOfRange(order, round * calls, (round + 1) * calls);
      Arrays.sort(one);
      assertThat(one).containsExactly(0, 1, 2, 3, 4, 5);
    }
  }

  @Test
  void noSideAlwaysFollowsTheSameOne() {
    int calls = 6;
    int[] order = PairedLatency.callOrder(calls, 200, 1);
    Set<Integer> predecessorsOfLast = new HashSet<>();
    for (int i = 1; i < order.length; i++) {
      if (order[i] == calls - 1) {
        predecessorsOfLast.add(order[i - 1]);
      }
    }
    assertThat(predecessorsOfLast).contains(0, 1, 2, 3, 4); // and itself, across a round's end
  }

  @Test
  void theSameSeedGivesTheSameOrderAndAnotherSeedAnother() {
    assertThat(PairedLatency.callOrder(6, 20, 7)).isEqualTo(PairedLatency.callOrder(6, 20, 7));
    assertThat(PairedLatency.callOrder(6, 20, 7)).isNotEqualTo(PairedLatency.callOrder(6, 20, 8));
  }
}
