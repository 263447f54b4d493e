package io.crigate.policy.seed;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-pod annotations of CRI Resource Manager and nri-plugins whose meaning the running crigate
 * cannot honour: behaviour no crigate policy has (memory tiers, colocation, RDT and block I/O
 * classes, CPU priorities, device topology hints), a hint the active policy does not read, or a
 * value it cannot act on. They are not errors: the pod runs, placed by crigate's own rules. But
 * whoever wrote one expects an effect, so each pod logs one warning per such annotation, naming the
 * key and why.
 *
 * <p>Both spellings are recognised, each with the {@code /pod} and {@code /container.NAME} scopes:
 * {@code memory-type.resource-policy.nri.io} and {@code memory-type.cri-resource-manager.intel.com},
 * and, for the annotations no policy reads, the older domain-first form
 * {@code cri-resource-manager.intel.com/affinity}.
 */
public final class UnreadPodAnnotations {

  private static final Logger log = LoggerFactory.getLogger(UnreadPodAnnotations.class);
  private static final String NO_TIERS = "crigate has no memory tiers: a container's memory nodes are those of its CPUs (ignored)";
  private static final String NO_COLOCATION =
      "crigate places each container by its own request; it keeps no affinity between containers (ignored)";
  /** Annotation name (the part before the domain) and why no crigate policy acts on it, whatever its value. */
  private static final Map<String, String> UNREAD = Map.of(
      "memory-type", NO_TIERS,
      "cold-start", NO_TIERS,
      "toptierlimit", NO_TIERS,
      "affinity", NO_COLOCATION,
      "anti-affinity", NO_COLOCATION,
      "rdtclass", "crigate assigns no RDT classes (ignored)",
      "blockioclass", "crigate assigns no block I/O classes (ignored)");

  private static final Set<String> TOPOLOGY_AWARE = Set.of("topology-aware");
  private static final Set<String> ISOLATING = Set.of("topology-aware", "static-plus");
  private static final Set<String> EVERY_POLICY = Set.of();

  /**
   * A hint some policy reads: the policies that read it ({@link #EVERY_POLICY} when its meaning does
   * not depend on the policy) and, for a value, why it cannot be honoured ({@code null} when it can).
   */
  private record Hint(Set<String> readBy, UnaryOperator<String> unhonoured) {}

  private static final Map<String, Hint> HINTS = Map.of(
      PodHints.PREFER_ISOLATED, new Hint(ISOLATING, value -> null),
      PodHints.REQUIRE_ISOLATED, new Hint(ISOLATING, value -> null),
      PodHints.PREFER_SHARED, new Hint(TOPOLOGY_AWARE, value -> null),
      PodHints.PREFER_RESERVED, new Hint(TOPOLOGY_AWARE, value -> null),
      PodHints.UNLIMITED_BURSTABLE, new Hint(TOPOLOGY_AWARE, UnreadPodAnnotations::unlimitedBurstable),
      // Honoured when they ask for what crigate does anyway: no CPU preference, no device hints.
      PodHints.CPU_PRIORITY, new Hint(EVERY_POLICY, value -> value.equalsIgnoreCase("none") ? null
          : "crigate knows no CPU priorities (Intel SST, base frequencies): exclusive CPUs are chosen by locality only (ignored)"),
      PodHints.TOPOLOGY_HINTS, new Hint(EVERY_POLICY, value -> value.equalsIgnoreCase("false") || value.equalsIgnoreCase("none") ? null
          : "crigate's policies take no topology hints from devices, mounts or pod resources: pools are chosen by CPU capacity "
              + "only (ignored)"));

  private UnreadPodAnnotations() {}

  /**
   * Each annotation of the pod whose meaning crigate cannot honour under policy {@code policy}, as
   * {@code key: why}, in key order. {@code reservedCpus} says whether reserved CPUs are configured,
   * without which {@code prefer-reserved-cpus} has nothing to run on.
   */
  public static List<String> of(String policy, boolean reservedCpus, Map<String, String> annotations) {
    List<String> found = new ArrayList<>();
    annotations.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
      String reason = reason(policy, reservedCpus, e.getKey(), e.getValue().trim());
      if (reason != null) {
        found.add(e.getKey() + ": " + reason);
      }
    });
    return found;
  }

  /** Logs {@link #of} for a pod seen for the first time; returns what was logged. */
  public static List<String> logFor(String policy, boolean reservedCpus, String podName, String podNamespace,
      Map<String, String> annotations) {
    List<String> unread = of(policy, reservedCpus, annotations);
    unread.forEach(line -> log.warn("pod {}/{}: annotation {}", podNamespace, podName, line));
    return unread;
  }

  private static String reason(String policy, boolean reservedCpus, String key, String value) {
    int slash = key.indexOf('/');
    String base = slash < 0 ? key : key.substring(0, slash);
    for (String domain : PodHints.DOMAINS) {
      if (base.equals(domain) && slash >= 0) {
        return UNREAD.get(key.substring(slash + 1)); // the older domain-first form: DOMAIN/NAME
      }
      if (base.endsWith("." + domain)) {
        String name = base.substring(0, base.length() - domain.length() - 1);
        return UNREAD.containsKey(name) ? UNREAD.get(name) : hintReason(policy, reservedCpus, name, value);
      }
    }
    return null;
  }

  private static String hintReason(String policy, boolean reservedCpus, String name, String value) {
    Hint hint = HINTS.get(name);
    if (hint == null) {
      return null;
    }
    if (!hint.readBy().isEmpty() && !hint.readBy().contains(policy)) {
      return "read by the %s polic%s only; the active policy is %s (ignored)"
          .formatted(String.join(" and ", hint.readBy().stream().sorted().toList()), hint.readBy().size() == 1 ? "y" : "ies", policy);
    }
    if (name.equals(PodHints.PREFER_RESERVED) && value.equalsIgnoreCase("true") && !reservedCpus) {
      return "no reserved CPUs are configured (policy.reservedCpus): the container is placed as if not annotated";
    }
    return hint.unhonoured().apply(value);
  }

  private static String unlimitedBurstable(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "system", "package", "die", "numa" -> null;
      case "l3cache" -> "crigate's pool tree has no L3 cache level: the NUMA node level is used";
      default -> "'%s' is not one of system, package, die, numa, l3cache (ignored)".formatted(value);
    };
  }
}
