package io.crigate.scheduler.sim;

/**
 * What {@link HindsightSearch} minimizes for one trace: bytes, plus a price on each balance measure
 * (a Lagrangian relaxation of the balance limits: sweeping the prices traces the bytes each level of
 * balance costs), plus {@link #EXCESS_PENALTY} per pod left unschedulable beyond
 * {@code maxUnschedulable}, since leaving pods out is the cheapest way to pull less.
 *
 * @param perByte the objective's units per byte pulled; with 1 / a baseline's bytes, 1 is that baseline's pull
 * @param cpuCvWeight price of one unit of {@link SimResult#cpuPerNodeCv()}
 * @param podsCvWeight price of one unit of {@link SimResult#podsPerNodeCv()}
 * @param maxUnschedulable the most unschedulable pods a result may have and still count as found
 */
public record SearchObjective(double perByte, double cpuCvWeight, double podsCvWeight, int maxUnschedulable) {

  /** As much as the baseline's whole pull when bytes are measured in it: no byte saving pays for a pod. */
  static final double EXCESS_PENALTY = 1;

  public SearchObjective {
    if (!(perByte > 0) || !(cpuCvWeight >= 0) || !(podsCvWeight >= 0) || maxUnschedulable < 0) {
      throw new IllegalArgumentException("need perByte > 0 and weights, maxUnschedulable >= 0; got %s, %s, %s, %d"
          .formatted(perByte, cpuCvWeight, podsCvWeight, maxUnschedulable));
    }
  }

  public double value(SimResult result) {
    return result.bytesPulled() * perByte + cpuCvWeight * result.cpuPerNodeCv()
        + podsCvWeight * result.podsPerNodeCv()
        + EXCESS_PENALTY * Math.max(0, result.unschedulable() - maxUnschedulable);
  }

  public boolean admits(SimResult result) {
    return result.unschedulable() <= maxUnschedulable;
  }
}
