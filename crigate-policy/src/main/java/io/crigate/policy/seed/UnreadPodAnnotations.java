package io.crigate.policy.seed;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-pod annotations of CRI Resource Manager and nri-plugins that ask for behaviour crigate's
 * policies do not have (memory tiers, colocation, RDT and block I/O classes). They are
 * not errors: the pod runs, placed by crigate's own rules. But whoever wrote one expects an effect,
 * so the first container of a pod that carries one logs a warning naming the key and why.
 *
 * <p>Both spellings are recognised, each with the {@code /pod} and {@code /container.NAME} scopes:
 * {@code memory-type.resource-policy.nri.io} and {@code memory-type.cri-resource-manager.intel.com},
 * and the older domain-first form {@code cri-resource-manager.intel.com/affinity}.
 */
public final class UnreadPodAnnotations {

  private static final Logger log = LoggerFactory.getLogger(UnreadPodAnnotations.class);
  private static final List<String> DOMAINS = List.of("resource-policy.nri.io", "cri-resource-manager.intel.com");
  private static final String NO_TIERS = "crigate has no memory tiers: a container's memory nodes are those of its CPUs";
  private static final String NO_COLOCATION =
      "crigate places each container by its own request; it keeps no affinity between containers";
  /** Annotation name (the part before the domain) and why crigate does not act on it. */
  private static final Map<String, String> UNREAD = Map.of(
      "memory-type", NO_TIERS,
      "cold-start", NO_TIERS,
      "toptierlimit", NO_TIERS,
      "affinity", NO_COLOCATION,
      "anti-affinity", NO_COLOCATION,
      "rdtclass", "crigate assigns no RDT classes",
      "blockioclass", "crigate assigns no block I/O classes");

  private UnreadPodAnnotations() {}

  /** Each annotation of the pod that crigate does not act on, as {@code key: why}, in key order. */
  public static List<String> of(Map<String, String> annotations) {
    List<String> found = new ArrayList<>();
    annotations.keySet().stream().sorted().forEach(key -> {
      String reason = reason(key);
      if (reason != null) {
        found.add(key + ": " + reason);
      }
    });
    return found;
  }

  /** Logs {@link #of} for a pod seen for the first time; returns what was logged. */
  public static List<String> logFor(String podName, String podNamespace, Map<String, String> annotations) {
    List<String> unread = of(annotations);
    unread.forEach(line -> log.warn("pod {}/{}: annotation {} (ignored)", podNamespace, podName, line));
    return unread;
  }

  private static String reason(String key) {
    int slash = key.indexOf('/');
    String base = slash < 0 ? key : key.substring(0, slash);
    for (String domain : DOMAINS) {
      if (base.equals(domain) && slash >= 0) {
        return UNREAD.get(key.substring(slash + 1)); // the older domain-first form: DOMAIN/NAME
      }
      if (base.endsWith("." + domain)) {
        return UNREAD.get(base.substring(0, base.length() - domain.length() - 1));
      }
    }
    return null;
  }
}
