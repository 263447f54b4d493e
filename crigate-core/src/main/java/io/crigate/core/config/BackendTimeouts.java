package io.crigate.core.config;

import java.time.Duration;

/**
 * How long crigate waits for one backend, set per backend next to its {@code name} and {@code type}.
 *
 * @param callTimeout the longest a routed call (status, stats, lists, start/stop, exec URLs) may
 *     take before crigate answers UNAVAILABLE naming the backend and marks it unhealthy; the
 *     kubelet's own deadline still applies when it is nearer
 * @param probeInterval how often crigate asks the backend for its Status to learn whether it answers
 * @param probeTimeout how long that probe may take; a probe that fails or times out makes calls to
 *     the backend fail fast with UNAVAILABLE until a probe succeeds again
 */
public record BackendTimeouts(Duration callTimeout, Duration probeInterval, Duration probeTimeout) {

  public static final BackendTimeouts DEFAULTS =
      new BackendTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(3));
}
