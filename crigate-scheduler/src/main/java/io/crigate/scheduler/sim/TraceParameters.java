package io.crigate.scheduler.sim;

/**
 * What a generated trace looks like: Poisson arrivals, Zipf image popularity, exponential run times.
 *
 * @param zipfExponent popularity of the image ranked r is proportional to 1/r^s
 */
public record TraceParameters(int pods, double arrivalsPerSecond, double meanDurationSeconds, double zipfExponent) {

  /** The default trace, fixed before any scorer was compared; see docs/scheduling.md. */
  public static final TraceParameters DEFAULT = new TraceParameters(4000, 0.25, 600, 1.0);
}
