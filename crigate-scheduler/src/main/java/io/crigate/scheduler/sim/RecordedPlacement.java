package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A placement that notes where it put each pod, as an assignment {@link FixedAssignment} replays:
 * so a scorer's run can seed {@link HindsightSearch}, and an edited assignment can be read back as
 * what actually ran once fallbacks moved some pods.
 */
final class RecordedPlacement implements Placement {

  private final Placement placement;
  private final Map<String, Integer> nodeByPod = new HashMap<>();

  RecordedPlacement(Placement placement) {
    this.placement = placement;
  }

  @Override
  public String name() {
    return placement.name();
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    SimNode node = placement.choose(pod, image, cluster, candidates, ties);
    nodeByPod.put(pod.pod(), cluster.indexOf(node));
    return node;
  }

  /** Node index per pod placed so far; pods left unschedulable are absent. */
  Map<String, Integer> assignment() {
    return Map.copyOf(nodeByPod);
  }
}
