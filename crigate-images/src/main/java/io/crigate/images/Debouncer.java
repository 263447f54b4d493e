package io.crigate.images;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action once, {@code delay} after the first of any number of triggers; triggers that come
 * while a run is pending join it. A burst of pulls therefore costs one rebuild and one API write
 * per window, and a steady stream still gets one per window rather than none.
 */
final class Debouncer {

  private final ScheduledExecutorService scheduler;
  private final Duration delay;
  private final Runnable action;
  private final AtomicBoolean pending = new AtomicBoolean();

  Debouncer(ScheduledExecutorService scheduler, Duration delay, Runnable action) {
    this.scheduler = scheduler;
    this.delay = delay;
    this.action = action;
  }

  void trigger() {
    if (pending.compareAndSet(false, true)) {
      scheduler.schedule(this::run, delay.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void run() {
    // cleared before running, so a trigger during the run schedules another: its change is not lost
    pending.set(false);
    action.run();
  }
}
