package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.scheduler.CpuLoad;
import org.junit.jupiter.api.Test;

class NodeLoadsTest {

  @Test
  void requestsAndAllocatableArriveInEitherOrderAndANodeThatGoesIsUnknownButKeepsItsPods() {
    NodeLoads loads = new NodeLoads();
    assertThat(loads.apply("a")).isEqualTo(CpuLoad.UNKNOWN);

    loads.addRequested("a", 500);      // a pod seen before its node
    assertThat(loads.apply("a").known()).isFalse();
    loads.allocatable("a", 4000);
    loads.addRequested("a", 250);
    assertThat(loads.apply("a")).isEqualTo(new CpuLoad(750, 4000));

    loads.allocatable("a", 0);         // node deleted
    assertThat(loads.apply("a").known()).isFalse();
    loads.addRequested("a", -500);     // its pods go one by one
    loads.allocatable("a", 8000);      // and it comes back
    assertThat(loads.apply("a")).isEqualTo(new CpuLoad(250, 8000));
  }
}
