package io.crigate.streaming;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What the streaming server is doing, for a node's dashboards: the exec and attach sessions and the
 * forwarded port connections open now (a forgotten {@code kubectl exec} into a batch job shows
 * here), how each ended, and connections closed for idleness.
 */
final class StreamingMetrics {

  private final Gauge open;
  private final Counter ended;
  private final Counter idleCloses;

  StreamingMetrics(PrometheusRegistry registry) {
    open = Gauge.builder().name("crigate_streaming_sessions")
        .help("Exec and attach sessions and forwarded port connections open now, by kind")
        .labelNames("kind")
        .register(registry);
    ended = Counter.builder().name("crigate_streaming_sessions_ended_total")
        .help("Exec and attach sessions and forwarded port connections ended, by kind and outcome "
            + "(exit 0, which a forward that closed reports, another exit code, or failed)")
        .labelNames("kind", "outcome")
        .register(registry);
    idleCloses = Counter.builder().name("crigate_streaming_idle_closes_total")
        .help("Connections closed because nothing passed for streaming.idleTimeout")
        .register(registry);
  }

  void opened(String kind) {
    open.labelValues(kind).inc();
  }

  void ended(String kind, ExitStatus status) {
    open.labelValues(kind).dec();
    ended.labelValues(kind, status.failure() != null ? "failed" : status.exitCode() == 0 ? "exit_0" : "exit_nonzero").inc();
  }

  void idleClosed() {
    idleCloses.inc();
  }
}
