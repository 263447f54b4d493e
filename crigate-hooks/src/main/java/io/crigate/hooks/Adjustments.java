package io.crigate.hooks;

import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.Mount;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Koordinator's composition inside the hook engine: hooks write into one response in order, so a
 * later hook's value (or mount at the same container path) replaces an earlier one's (CPUSetAllocator lifts the quota BatchResource set).
 * Between the engine and other plugins the adjustment engine's stricter conflict rule applies.
 */
final class Adjustments {

  private Adjustments() {}

  static Adjustment then(Adjustment earlier, Adjustment later) {
    if (later.isEmpty()) {
      return earlier;
    }
    if (earlier.isEmpty()) {
      return later;
    }
    Adjustment.Builder b = Adjustment.builder().resources(earlier.resources().overriddenBy(later.resources()));
    (later.oomScoreAdj().isPresent() ? later.oomScoreAdj() : earlier.oomScoreAdj()).ifPresent(b::oomScoreAdj);
    earlier.env().forEach(b::env);
    later.env().forEach(b::env);
    earlier.annotations().forEach(b::annotation);
    later.annotations().forEach(b::annotation);
    Map<String, Mount> mounts = new LinkedHashMap<>();
    earlier.mounts().forEach(m -> mounts.put(m.containerPath(), m));
    later.mounts().forEach(m -> mounts.put(m.containerPath(), m));
    mounts.values().forEach(b::mount);
    return b.build();
  }
}
