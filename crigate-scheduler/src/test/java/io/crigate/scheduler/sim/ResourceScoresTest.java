package io.crigate.scheduler.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResourceScoresTest {

  @Test
  void leastAllocatedPrefersFreeCapacity() {
    // (1000 - 250) x 100 / 1000 = 75
    assertThat(ResourceScores.leastAllocated(250, 1000)).isEqualTo(75);
    assertThat(ResourceScores.leastAllocated(1200, 1000)).isZero();
  }

  @Test
  void balancedAllocationPenalizesSkew() {
    // |0.6 - 0.2| / 2 = 0.2 -> (1 - 0.2) x 100 = 80
    assertThat(ResourceScores.balancedAllocation(0.6, 0.2)).isEqualTo(80);
    assertThat(ResourceScores.balancedAllocation(0.5, 0.5)).isEqualTo(100);
  }
}
