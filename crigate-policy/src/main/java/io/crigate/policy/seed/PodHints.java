package io.crigate.policy.seed;

import io.crigate.spi.adjust.PodContext;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a per-pod hint of nri-plugins or CRI Resource Manager under either spelling:
 * {@code NAME.resource-policy.nri.io} first, then {@code NAME.cri-resource-manager.intel.com}, each
 * scoped as {@link PodContext#annotation} scopes it ({@code /container.<name>}, {@code /pod}, bare).
 * nri-plugins' key wins because it is the one still maintained; a pod carrying both is usually
 * half-way through a migration and the newer key is the one its owner edits.
 */
public final class PodHints {

  /** The two domains, nri-plugins' first. */
  public static final List<String> DOMAINS = List.of("resource-policy.nri.io", "cri-resource-manager.intel.com");

  public static final String PREFER_ISOLATED = "prefer-isolated-cpus";
  public static final String REQUIRE_ISOLATED = "require-isolated-cpus";
  public static final String PREFER_SHARED = "prefer-shared-cpus";
  public static final String PREFER_RESERVED = "prefer-reserved-cpus";
  public static final String UNLIMITED_BURSTABLE = "unlimited-burstable";
  public static final String CPU_PRIORITY = "prefer-cpu-priority";
  public static final String TOPOLOGY_HINTS = "topologyhints";

  private PodHints() {}

  /** The trimmed value of hint {@code name} for {@code container}, if the pod sets it under either spelling. */
  public static Optional<String> value(PodContext pod, String name, String container) {
    for (String domain : DOMAINS) {
      String value = pod.annotation(name + "." + domain, container, null);
      if (value != null) {
        return Optional.of(value.trim());
      }
    }
    return Optional.empty();
  }

  /** The hint as a boolean ({@code "true"}, any case, is true; anything else false), if set. */
  public static Optional<Boolean> flag(PodContext pod, String name, String container) {
    return value(pod, name, container).map(v -> v.toLowerCase(Locale.ROOT).equals("true"));
  }
}
