package io.crigate.backend.slurm;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The slurm backends' metrics: poll duration and Slurm commands per poll of the configured
 * cluster's poller, and containers by job state and port-forward relays waiting (read when scraped). One set per registry, shared
 * by every slurm backend in it, because a registry takes each metric name once.
 */
final class SlurmMetrics {

  /** The one set of each registry; weak, so a registry that is dropped (tests) takes its set along. */
  private static final Map<PrometheusRegistry, SlurmMetrics> BY_REGISTRY = new WeakHashMap<>();

  private final Histogram pollSeconds;
  private final Histogram commandsPerPoll;
  private final Map<String, SlurmBackend> backends = new ConcurrentHashMap<>();

  private SlurmMetrics(PrometheusRegistry registry) {
    pollSeconds = Histogram.builder().name("crigate_slurm_poll_duration_seconds").unit(Unit.SECONDS)
        .help("One poll of a slurm backend's jobs (squeue, and sacct for jobs slurmctld forgot)")
        .labelNames("backend").classicOnly()
        .classicUpperBounds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10).register(registry);
    commandsPerPoll = Histogram.builder().name("crigate_slurm_commands_per_poll")
        .help("Slurm commands one poll ran, whatever the number of jobs (1 squeue, +1 sacct)")
        .labelNames("backend").classicOnly().classicUpperBounds(1, 2, 3, 5, 10).register(registry);
    GaugeWithCallback.builder().name("crigate_slurm_jobs")
        .help("Containers of each slurm backend by the state of their job (Slurm's, or NOT_SUBMITTED, SUBMITTED, ENDED, UNKNOWN)")
        .labelNames("backend", "state")
        .callback(callback -> backends.forEach((name, backend) -> backend.jobsByState()
            .forEach((state, count) -> callback.call(count, name, state))))
        .register(registry);
    GaugeWithCallback.builder().name("crigate_slurm_port_relays_waiting")
        .help("Port-forward relay steps a slurm backend started ahead, waiting in their jobs for a connection (portForwardStandby)")
        .labelNames("backend")
        .callback(callback -> backends.forEach((name, backend) -> callback.call(backend.portRelaysWaiting(), name)))
        .register(registry);
  }

  static synchronized SlurmMetrics in(PrometheusRegistry registry) {
    return BY_REGISTRY.computeIfAbsent(registry, SlurmMetrics::new);
  }

  void add(String name, SlurmBackend backend) {
    backends.put(name, backend);
    var seconds = pollSeconds.labelValues(name);
    var commands = commandsPerPoll.labelValues(name);
    backend.poller().observe((nanos, count) -> {
      seconds.observe(nanos / 1e9);
      commands.observe(count);
    });
  }
}
