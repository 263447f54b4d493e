package io.crigate.policy;

import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;

/**
 * A pinning policy: a container's CPUs go back when it stops (a stopped container runs nothing),
 * and removal after a stop finds nothing left to release.
 */
interface ReleasesOnStop extends AdjustmentPlugin {

  /** Releases what {@code key} holds; the result carries the updates for containers that gain CPUs. */
  PluginResult forget(ContainerKey key);

  @Override
  default PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return forget(container.key());
  }

  @Override
  default PluginResult removeContainer(PodContext pod, ContainerContext container) {
    return forget(container.key());
  }

  /** CPUs and the memory nodes they belong to: memory always follows the CPUs. */
  static LinuxResources pin(CpuTopology topology, CpuSet cpus) {
    return LinuxResources.builder().cpusetCpus(cpus.toString()).cpusetMems(topology.nodesOf(cpus).toString()).build();
  }
}
