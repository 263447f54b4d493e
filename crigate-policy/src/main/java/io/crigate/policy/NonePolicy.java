package io.crigate.policy;

import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuTopology;
import java.util.List;

/**
 * The default: requests pass unchanged. When it becomes active over a pinning policy, containers
 * that were pinned are given every CPU and memory node again, which is what "no policy" means for
 * them.
 */
final class NonePolicy implements AdjustmentPlugin {

  private final CpuTopology topology;

  NonePolicy(CpuTopology topology) {
    this.topology = topology;
  }

  @Override
  public String name() {
    return "none";
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    String all = topology.online().toString();
    LinuxResources widened = LinuxResources.builder().cpusetCpus(all)
        .cpusetMems(topology.nodesOf(topology.online()).toString()).build();
    return containers.stream()
        .filter(c -> c.resources().cpusetCpus().isPresent() && !c.resources().cpusetCpus().get().equals(all))
        .map(c -> ContainerUpdate.of(c.id(), widened))
        .toList();
  }
}
