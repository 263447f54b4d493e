package io.crigate.core;

import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.core.config.BackendTimeouts;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether each backend answers. A backend whose Status probe fails or times out, or that lets a
 * routed call pass its call timeout, is unhealthy: calls to it fail at once with UNAVAILABLE naming
 * it, instead of each waiting for the kubelet's two-minute deadline on a frozen runtime. The next
 * probe that succeeds makes it healthy again. Everyone starts healthy, so a slow first probe never
 * blocks start-up.
 */
final class BackendHealth implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BackendHealth.class);
  private static final StatusRequest PROBE = StatusRequest.getDefaultInstance();

  private final Map<String, BackendTimeouts> timeouts;
  private final Map<String, String> unhealthy = new ConcurrentHashMap<>();
  private final List<ScheduledFuture<?>> probes = new ArrayList<>();

  BackendHealth(Map<String, BackendTimeouts> timeouts) {
    this.timeouts = Map.copyOf(timeouts);
  }

  Duration callTimeout(String backend) {
    return settings(backend).callTimeout();
  }

  /** Why calls to {@code backend} fail fast now, or empty while it answers. */
  Optional<CrigateException.Unavailable> unavailable(String backend) {
    String reason = unhealthy.get(backend);
    return reason == null ? Optional.empty() : Optional.of(new CrigateException.Unavailable(
        "backend %s is unhealthy (%s); crigate fails its calls fast until a health probe succeeds (every %d ms)"
            .formatted(backend, reason, settings(backend).probeInterval().toMillis())));
  }

  /** Whether calls may go to {@code backend} now; the relay's check, which needs no reason. */
  boolean isHealthy(String backend) {
    return !unhealthy.containsKey(backend);
  }

  /** @throws CrigateException.Unavailable naming the backend while it is unhealthy */
  void require(String backend) {
    Optional<CrigateException.Unavailable> down = unavailable(backend);
    if (down.isPresent()) {
      throw down.get();
    }
  }

  void markUnhealthy(String backend, String reason) {
    if (unhealthy.put(backend, reason) == null) {
      log.warn("backend {} is unhealthy: {}", backend, reason);
    }
  }

  void markHealthy(String backend) {
    String was = unhealthy.remove(backend);
    if (was != null) {
      log.info("backend {} answers again (was: {})", backend, was);
    }
  }

  /** Probes every backend with Status at its own interval, on {@code loop}; stopped by {@link #close()}. */
  void startProbes(Iterable<Backend> backends, BackendCalls calls, ScheduledExecutorService loop) {
    for (Backend backend : backends) {
      BackendTimeouts own = settings(backend.name());
      long interval = own.probeInterval().toNanos();
      probes.add(loop.scheduleWithFixedDelay(() -> probe(backend, calls, own.probeTimeout()),
          interval, interval, TimeUnit.NANOSECONDS));
    }
  }

  private void probe(Backend backend, BackendCalls calls, Duration timeout) {
    calls.probe(backend, BackendCall.STATUS, PROBE, timeout).whenComplete((answer, failure) -> {
      if (failure == null) {
        markHealthy(backend.name());
      } else {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        markUnhealthy(backend.name(), "health probe failed: " + cause.getMessage());
      }
    });
  }

  private BackendTimeouts settings(String backend) {
    return timeouts.getOrDefault(backend, BackendTimeouts.DEFAULTS);
  }

  @Override
  public void close() {
    probes.forEach(probe -> probe.cancel(false));
  }
}
