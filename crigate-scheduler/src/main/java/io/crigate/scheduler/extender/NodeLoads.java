package io.crigate.scheduler.extender;

import io.crigate.scheduler.CpuLoad;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Each node's CPU load, one map entry per node: a prioritize call looks up every candidate, so
 * requested and allocatable CPU sit together behind a single lookup. Written by
 * {@link NodeLoadInformer}; read by {@link LayerExtender}.
 */
public final class NodeLoads implements Function<String, CpuLoad> {

  private final Map<String, CpuLoad> loads = new ConcurrentHashMap<>();

  /** The node's load, or {@link CpuLoad#UNKNOWN} for a node not (yet) seen or without allocatable CPU. */
  @Override
  public CpuLoad apply(String node) {
    return loads.getOrDefault(node, CpuLoad.UNKNOWN);
  }

  /** 0 when the node is gone: its load is unknown again, while the pods still bound to it keep counting. */
  public void allocatable(String node, long millis) {
    loads.merge(node, new CpuLoad(0, millis), (old, update) -> new CpuLoad(old.requestedMillis(), millis));
  }

  public void addRequested(String node, long millis) {
    loads.merge(node, new CpuLoad(millis, 0),
        (old, update) -> new CpuLoad(old.requestedMillis() + millis, old.allocatableMillis()));
  }
}
