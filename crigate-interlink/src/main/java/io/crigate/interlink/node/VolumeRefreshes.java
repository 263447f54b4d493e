package io.crigate.interlink.node;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * When each pod's projected volumes are sent to the plugin again (its tokens near the end of their
 * lifetime). One pending refresh per pod uid; a pod that goes has its refresh cancelled.
 */
final class VolumeRefreshes {

  private final ScheduledExecutorService timers;
  private final Clock clock;
  private final Map<String, ScheduledFuture<?>> pending = new ConcurrentHashMap<>();

  VolumeRefreshes(ScheduledExecutorService timers, Clock clock) {
    this.timers = timers;
    this.clock = clock;
  }

  /** Runs {@code refresh} for the pod at {@code at} (at once if that has passed), replacing any pending one. */
  void schedule(String uid, Instant at, Runnable refresh) {
    long delay = Math.max(0, Duration.between(clock.instant(), at).toMillis());
    ScheduledFuture<?> next = timers.schedule(() -> {
      pending.remove(uid);
      refresh.run();
    }, delay, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> before = pending.put(uid, next);
    if (before != null) {
      before.cancel(false);
    }
  }

  boolean scheduled(String uid) {
    return pending.containsKey(uid);
  }

  void cancel(String uid) {
    ScheduledFuture<?> before = pending.remove(uid);
    if (before != null) {
      before.cancel(false);
    }
  }
}
