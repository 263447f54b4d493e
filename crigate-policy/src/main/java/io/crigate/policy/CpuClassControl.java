package io.crigate.policy;

import io.crigate.policy.BalloonsConfig.CpuClass;
import io.crigate.spi.CrigateException;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.TopologyLevel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Configures CPUs by the class of the balloon they are in ({@code control.cpu.classes}): core
 * frequencies per CPU, C-states per CPU, and uncore frequencies per package and die, where the
 * highest {@code uncoreMinFreq} and the highest {@code uncoreMaxFreq} among the classes of the
 * die's CPUs win (the die is shared; performance goes first). CPUs no balloon holds get the idle
 * class, or their hardware defaults without one. Nothing is written unless some class is used.
 */
final class CpuClassControl {

  private final CpuTopology topology;
  private final BalloonsConfig config;
  private final CpuFrequencies frequencies;
  /** Present only when some class disables C-states, so that machines without cpuidle are left alone otherwise. */
  private final CpuIdleStates idleStates;
  private final UncoreFrequencies uncore;
  private final boolean tunesUncore;
  /** The class each configured CPU is in now; "" = hardware defaults. */
  private final Map<Integer, String> classOf = new HashMap<>();

  /**
   * @throws CrigateException.InvalidArgument naming the class's key when the machine cannot do what
   *     it asks: uncore limits without the intel_uncore_frequency driver, a C-state cpuidle does not list
   */
  CpuClassControl(Path sysfsRoot, CpuTopology topology, BalloonsConfig config) {
    this.topology = topology;
    this.config = config;
    this.frequencies = new CpuFrequencies(sysfsRoot);
    this.uncore = new UncoreFrequencies(sysfsRoot);
    boolean cstates = config.cpuClasses().values().stream().anyMatch(c -> !c.disabledCstates().isEmpty());
    this.idleStates = cstates ? new CpuIdleStates(sysfsRoot, topology.online()) : null;
    this.tunesUncore = config.cpuClasses().values().stream().anyMatch(CpuClass::setsUncore);
    config.cpuClasses().forEach((name, cpuClass) -> {
      String field = "policy.balloons.control.cpu.classes." + name;
      if (cpuClass.setsUncore() && !uncore.available()) {
        throw new CrigateException.InvalidArgument(
            "%s.%s: the uncore frequency cannot be set: the intel_uncore_frequency driver is not loaded (no devices/system/cpu/intel_uncore_frequency under %s)"
                .formatted(field, cpuClass.uncoreMinFreq() > 0 ? "uncoreMinFreq" : "uncoreMaxFreq", sysfsRoot));
      }
      if (idleStates != null) {
        idleStates.requireKnown(cpuClass.disabledCstates(), field + ".disabledCstates");
      }
    });
  }

  /** Puts {@code cpus} in {@code cpuClass}; an empty name is the idle class. */
  void assign(CpuSet cpus, String cpuClass) {
    if (!config.configuresCpuClasses() || cpus.isEmpty()) {
      return;
    }
    String effective = cpuClass.isEmpty() ? config.idleCpuClass() : cpuClass;
    CpuClass settings = config.cpuClasses().get(effective);
    if (settings == null) {
      frequencies.reset(cpus);
    } else {
      frequencies.apply(cpus, settings);
    }
    if (idleStates != null) {
      idleStates.apply(cpus, settings == null ? List.of() : settings.disabledCstates());
    }
    cpus.stream().forEach(cpu -> classOf.put(cpu, effective));
    if (tunesUncore) {
      dies(cpus).forEach(this::configureUncore);
    }
  }

  private Set<CpuSet> dies(CpuSet cpus) {
    Set<CpuSet> dies = new LinkedHashSet<>();
    cpus.stream().forEach(cpu -> dies.add(topology.sameAs(CpuSet.of(cpu), TopologyLevel.DIE)));
    return dies;
  }

  private void configureUncore(CpuSet die) {
    long min = 0;
    long max = 0;
    for (int cpu : die.stream().toArray()) {
      CpuClass settings = config.cpuClasses().get(classOf.getOrDefault(cpu, ""));
      if (settings != null) {
        min = Math.max(min, settings.uncoreMinFreq());
        max = Math.max(max, settings.uncoreMaxFreq());
      }
    }
    uncore.apply(topology.cpu(die.stream().findFirst().orElseThrow()), min, max);
  }
}
