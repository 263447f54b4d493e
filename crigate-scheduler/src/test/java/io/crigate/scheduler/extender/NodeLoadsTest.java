package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.scheduler.NodeLoad;
import org.junit.jupiter.api.Test;

class NodeLoadsTest {

  @Test
  void requestsAndAllocatableArriveInEitherOrderAndANodeThatGoesIsUnknownButKeepsItsPods() {
    NodeLoads loads = new NodeLoads(new NodeTable());
    assertThat(loads.apply("a")).isEqualTo(NodeLoad.UNKNOWN);

    loads.addRequested("a", 500, 1);   // a pod seen before its node
    assertThat(loads.apply("a").known()).isFalse();
    loads.allocatable("a", 4000);
    loads.addRequested("a", 250, 1);
    assertThat(loads.apply("a")).isEqualTo(new NodeLoad(750, 4000, 2));

    loads.allocatable("a", 0);         // node deleted
    assertThat(loads.apply("a").known()).isFalse();
    loads.addRequested("a", -500, -1); // its pods go one by one
    loads.allocatable("a", 8000);      // and it comes back
    assertThat(loads.apply("a")).isEqualTo(new NodeLoad(250, 8000, 1));
  }

  @Test
  void anAssumedPodCountsWithItsRequestAndAsAPodUntilRetracted() {
    NodeLoads loads = new NodeLoads(new NodeTable());
    loads.allocatable("a", 4000);
    loads.addRequested("a", 1000, 2);

    loads.assume("apps/p1", "a", 250);
    loads.assume("apps/p2", "a", 0);   // a pod that requests no CPU is still a pod
    assertThat(loads.apply("a")).isEqualTo(new NodeLoad(1250, 4000, 4));

    loads.retract("apps/p1");
    assertThat(loads.apply("a")).isEqualTo(new NodeLoad(1000, 4000, 3));
    loads.retract("apps/p2");
    assertThat(loads.apply("a")).isEqualTo(new NodeLoad(1000, 4000, 2));
  }
}
