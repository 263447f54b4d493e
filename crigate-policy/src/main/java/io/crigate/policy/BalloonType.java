package io.crigate.policy;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One kind of balloon the {@code balloons} policy creates on demand (field names as in nri-plugins'
 * {@code balloonTypes}, so configurations move between the two).
 *
 * @param name what pods name in the balloon annotation; also the prefix of its balloons' names
 * @param namespaces namespaces (with {@code *} wildcards) whose pods go to this type without an annotation
 * @param minCpus CPUs a balloon of this type has even when its containers request fewer
 * @param maxCpus CPUs a balloon of this type never exceeds; 0 = no limit
 * @param allocatorPriority who gets CPUs first when every container is placed again (restart, live switch)
 * @param preferNewBalloons a new container gets a new balloon while free CPUs allow, instead of joining one
 * @param preferSpreadingPods containers of one pod go to different balloons instead of the same one
 */
public record BalloonType(String name, List<String> namespaces, int minCpus, int maxCpus, AllocatorPriority allocatorPriority,
    boolean preferNewBalloons, boolean preferSpreadingPods) {

  /** nri-plugins' scale: 0 high, 1 normal, 2 low, 3 none; names or numbers are accepted. */
  public enum AllocatorPriority {
    HIGH, NORMAL, LOW, NONE
  }

  public BalloonType {
    namespaces = List.copyOf(namespaces);
  }

  boolean matches(String namespace) {
    return namespaces.stream().anyMatch(pattern -> glob(pattern).matcher(namespace).matches());
  }

  /** The number of CPUs a balloon of this type needs for containers requesting {@code milli} in total. */
  int cpusFor(long milli) {
    int wanted = (int) Math.max(Math.ceilDiv(milli, 1000L), 1);
    int cpus = Math.max(wanted, minCpus);
    return maxCpus > 0 ? Math.min(cpus, maxCpus) : cpus;
  }

  /** Whether containers requesting {@code milli} in total fit in one balloon of this type. */
  boolean holds(long milli) {
    return maxCpus == 0 || milli <= maxCpus * 1000L;
  }

  /** {@code *} matches any run of characters; everything else literally. */
  static Pattern glob(String pattern) {
    return Pattern.compile(Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote).collect(Collectors.joining(".*")));
  }
}
