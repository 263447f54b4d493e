package io.crigate.hooks;

import io.crigate.spi.adjust.Adjustment;

/**
 * Koordinator's composition inside the hook engine: hooks write into one response in order, so a
 * later hook's value replaces an earlier one's (CPUSetAllocator lifts the quota BatchResource set).
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
    return b.build();
  }
}
