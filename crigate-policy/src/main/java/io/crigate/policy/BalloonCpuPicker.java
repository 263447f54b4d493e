package io.crigate.policy;

import io.crigate.topology.CoreTypes;
import io.crigate.topology.CpuAllocator;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.DeviceLocality;
import io.crigate.topology.TopologyLevel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the CPUs a balloon takes (new or growing) or keeps (shrinking), in the order its type
 * prefers them. The candidates are split into tiers, best first, by each preference in turn:
 * isolated CPUs ({@code preferIsolCpus}); CPUs near its first device, its second, ...
 * ({@code preferCloseToDevices}); its kind of core ({@code preferCoreType}); CPUs away from the
 * devices other types prefer and it does not. Each tier gives what it can; within a tier, CPUs
 * close to those the balloon holds (same NUMA node, else socket) come first, a balloon with none
 * starts on the tightest node (or the roomiest, {@code allocatorTopologyBalancing}), and
 * {@code preferSpreadOnPhysicalCores} decides between whole cores and one thread per core.
 */
final class BalloonCpuPicker {

  private static final Logger log = LoggerFactory.getLogger(BalloonCpuPicker.class);

  private final CpuTopology topology;
  private final CpuAllocator allocator;
  /** Per type name: its preferences as ordered groups of CPUs, one list per preference. */
  private final Map<String, List<List<CpuSet>>> preferences = new HashMap<>();

  BalloonCpuPicker(CpuTopology topology, CoreTypes coreTypes, DeviceLocality devices, List<BalloonType> types) {
    this.topology = topology;
    this.allocator = new CpuAllocator(topology);
    Map<String, CpuSet> near = new LinkedHashMap<>();
    types.forEach(type -> type.preferCloseToDevices().forEach(device -> near.computeIfAbsent(device, d -> locate(devices, d))));
    for (BalloonType type : types) {
      List<List<CpuSet>> tiers = new ArrayList<>();
      if (type.preferIsolCpus()) {
        tiers.add(List.of(topology.isolated()));
      }
      tiers.add(type.preferCloseToDevices().stream().map(near::get).toList());
      type.preferCoreType().filter(kind -> coreTypes.hybrid()).ifPresent(kind -> tiers.add(List.of(coreTypes.of(kind))));
      CpuSet othersDevices = CpuSet.EMPTY;
      for (var device : near.entrySet()) {
        if (!type.preferCloseToDevices().contains(device.getKey())) {
          othersDevices = othersDevices.union(device.getValue());
        }
      }
      tiers.add(List.of(topology.online().minus(othersDevices)));
      preferences.put(type.name(), tiers);
    }
  }

  /** A device that is missing or says nothing about its CPUs is no preference: warned about once, at start. */
  private static CpuSet locate(DeviceLocality devices, String device) {
    Optional<CpuSet> cpus = devices.cpusNear(device);
    if (cpus.isEmpty()) {
      log.warn("balloons: preferCloseToDevices: {} does not exist or has no CPU locality under the sysfs root; it is ignored", device);
    }
    return cpus.orElse(CpuSet.EMPTY);
  }

  /**
   * {@code count} CPUs of {@code pool} for a balloon of {@code type} that holds {@code held}
   * already (empty for a new balloon, or when choosing what a shrinking balloon keeps).
   */
  CpuSet pick(BalloonType type, CpuSet pool, int count, CpuSet held) {
    CpuSet taken = CpuSet.EMPTY;
    for (CpuSet tier : tiers(type, pool)) {
      int need = count - taken.size();
      if (need == 0) {
        break;
      }
      int n = Math.min(need, tier.size());
      CpuSet near = held.union(taken);
      CpuSet scope = scope(tier, n, near, type.allocatorTopologyBalancing());
      taken = taken.union(type.preferSpreadOnPhysicalCores() ? allocator.allocateSpread(scope, n, near) : allocator.allocate(scope, n));
    }
    if (taken.size() < count) {
      throw new IllegalStateException("balloons: %d CPUs asked of %s, which has %d".formatted(count, pool, pool.size()));
    }
    return taken;
  }

  /** The pool split by the type's preferences, best tier first; empty tiers left out. */
  private List<CpuSet> tiers(BalloonType type, CpuSet pool) {
    List<CpuSet> tiers = List.of(pool);
    for (List<CpuSet> preference : preferences.get(type.name())) {
      List<CpuSet> split = new ArrayList<>();
      for (CpuSet tier : tiers) {
        CpuSet rest = tier;
        for (CpuSet preferred : preference) {
          split.add(rest.intersect(preferred));
          rest = rest.minus(preferred);
        }
        split.add(rest);
      }
      tiers = split.stream().filter(t -> !t.isEmpty()).toList();
    }
    return tiers;
  }

  /** Where in {@code tier} to take {@code n}: near the CPUs held if they have room, else the roomiest node or socket when balancing. */
  private CpuSet scope(CpuSet tier, int n, CpuSet near, boolean balancing) {
    if (!near.isEmpty()) {
      for (TopologyLevel level : List.of(TopologyLevel.NUMA, TopologyLevel.PACKAGE)) {
        CpuSet close = tier.intersect(topology.sameAs(near, level));
        if (close.size() >= n) {
          return close;
        }
      }
      return tier;
    }
    if (balancing) {
      for (Map<Integer, CpuSet> level : List.of(topology.nodes(), topology.packages())) {
        Optional<CpuSet> roomiest = level.values().stream().map(tier::intersect).filter(part -> part.size() >= n)
            .max(Comparator.comparingInt(CpuSet::size));
        if (roomiest.isPresent()) {
          return roomiest.get();
        }
      }
    }
    return tier;
  }
}
