package io.crigate.hooks;

import java.time.Duration;

/**
 * When the standalone reconciler lists the runtime's containers while it has no event stream. A
 * container waits at most one list interval to be seen, plus the list and the reconciles it
 * starts; so the interval is the period minus what the last list and its reconciles took, which
 * keeps wait plus work within the period. Lists come every {@code busy} while containers keep
 * appearing, where the delay matters, and every {@code idle} once an idle period found nothing new,
 * where only the listing CPU does.
 *
 * @param idle the period while nothing new appears; the bound on a container's delay after a quiet spell
 * @param busy the period while containers appear (at most {@code idle})
 */
public record ListSchedule(Duration idle, Duration busy) {

  /** Never list again sooner than this after a list began, however long the work took. */
  static final Duration MIN_INTERVAL = Duration.ofMillis(20);

  public ListSchedule {
    if (idle.isNegative() || idle.isZero() || busy.isNegative() || busy.isZero()) {
      throw new IllegalArgumentException("list periods must be positive: idle " + idle + ", busy " + busy);
    }
    if (busy.compareTo(idle) > 0) {
      throw new IllegalArgumentException("the busy list period " + busy + " exceeds the idle one " + idle);
    }
  }

  /** One period whether or not containers appear: the schedule before issue 14's p99 work, kept as the baseline. */
  public static ListSchedule fixed(Duration period) {
    return new ListSchedule(period, period);
  }

  /**
   * From the start of one list to the start of the next.
   *
   * @param sinceLastNew how long ago a list last found a container it had not seen
   * @param lastWork how long the previous list and the reconciles it started took
   */
  Duration interval(Duration sinceLastNew, Duration lastWork) {
    Duration period = sinceLastNew.compareTo(idle) < 0 ? busy : idle;
    Duration interval = period.minus(lastWork);
    return interval.compareTo(MIN_INTERVAL) < 0 ? MIN_INTERVAL : interval;
  }
}
