package io.crigate.policy;

import io.crigate.topology.CoreTypes;
import io.crigate.topology.TopologyLevel;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One kind of balloon the {@code balloons} policy creates on demand (field names as in nri-plugins'
 * {@code balloonTypes}, so configurations move between the two; exact meaning in docs/policies.md).
 *
 * @param name what pods name in the balloon annotation; also the prefix of its balloons' names
 * @param namespaces namespaces (with {@code *} wildcards) whose pods go to this type without an annotation
 * @param minCpus CPUs a balloon of this type has even when its containers request fewer; with 0, a
 *     balloon without containers (one of its {@code minBalloons}) holds no CPU at all
 * @param maxCpus CPUs a balloon of this type never exceeds; 0 = no limit
 * @param allocatorPriority who gets CPUs first when every container is placed again (restart, live switch)
 * @param preferNewBalloons a new container gets a new balloon while free CPUs allow, instead of joining one
 * @param preferSpreadingPods containers of one pod go to different balloons instead of the same one
 * @param minBalloons balloons of this type that always exist, with or without containers
 * @param maxBalloons balloons of this type that may exist at once; 0 = no limit
 * @param preferPerNamespaceBalloon containers of one namespace share balloons, other namespaces get others
 * @param shareIdleCpusInSame when present, containers also run on the CPUs no balloon holds within this level of their balloon's CPUs
 * @param cpuClass the {@code control.cpu.classes} entry its CPUs are configured with; empty = none
 * @param preferIsolCpus its balloons take isolated CPUs first (then ordinary ones when those run out)
 * @param preferSpreadOnPhysicalCores its balloons' CPUs go to as many physical cores as possible
 *     instead of both threads of few cores (the policy-level value unless the type sets its own)
 * @param allocatorTopologyBalancing its new balloons go to the NUMA node (then socket) with the most
 *     free CPUs instead of the tightest (the policy-level value unless the type sets its own)
 * @param preferCoreType on a hybrid machine, its balloons take CPUs of this kind of core first
 * @param preferCloseToDevices sysfs paths of devices its new balloons take CPUs near first, the first
 *     device before the next
 */
public record BalloonType(String name, List<String> namespaces, int minCpus, int maxCpus, AllocatorPriority allocatorPriority,
    boolean preferNewBalloons, boolean preferSpreadingPods, int minBalloons, int maxBalloons, boolean preferPerNamespaceBalloon,
    Optional<TopologyLevel> shareIdleCpusInSame, String cpuClass, boolean preferIsolCpus, boolean preferSpreadOnPhysicalCores,
    boolean allocatorTopologyBalancing, Optional<CoreTypes.Kind> preferCoreType, List<String> preferCloseToDevices) {

  /** nri-plugins' scale: 0 high, 1 normal, 2 low, 3 none; names or numbers are accepted. */
  public enum AllocatorPriority {
    HIGH, NORMAL, LOW, NONE
  }

  /** Compiled once per pattern: types are matched on every decision. */
  private static final Map<String, Pattern> GLOBS = new ConcurrentHashMap<>();

  public BalloonType {
    namespaces = List.copyOf(namespaces);
    preferCloseToDevices = List.copyOf(preferCloseToDevices);
  }

  boolean matches(String namespace) {
    return namespaces.stream().anyMatch(pattern -> glob(pattern).matcher(namespace).matches());
  }

  /**
   * The number of CPUs a balloon of this type needs for containers requesting {@code milli} in
   * total: at least one while it has containers (even BestEffort ones, which request nothing, need a
   * CPU to run on), none beyond {@code minCpus} while it has none.
   */
  int cpusFor(long milli, boolean occupied) {
    int wanted = (int) Math.max(Math.ceilDiv(milli, 1000L), occupied ? 1 : 0);
    int cpus = Math.max(wanted, minCpus);
    return maxCpus > 0 ? Math.min(cpus, maxCpus) : cpus;
  }

  /** Whether containers requesting {@code milli} in total fit in one balloon of this type. */
  boolean holds(long milli) {
    return maxCpus == 0 || milli <= maxCpus * 1000L;
  }

  /** Whether {@code count} balloons of this type may exist. */
  boolean allows(int count) {
    return maxBalloons == 0 || count <= maxBalloons;
  }

  /** {@code *} matches any run of characters; everything else literally. */
  static Pattern glob(String pattern) {
    return GLOBS.computeIfAbsent(pattern,
        p -> Pattern.compile(Arrays.stream(p.split("\\*", -1)).map(Pattern::quote).collect(Collectors.joining(".*"))));
  }
}
