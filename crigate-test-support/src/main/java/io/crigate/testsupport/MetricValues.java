package io.crigate.testsupport;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;

/** Reads one counter or gauge value out of a registry, as a scrape would see it. */
public final class MetricValues {

  private MetricValues() {}

  /**
   * The value of {@code name} (a counter's without its {@code _total}) whose labels are exactly
   * {@code labelNamesAndValues}, or null when the registry has no such data point.
   */
  public static Double of(PrometheusRegistry registry, String name, String... labelNamesAndValues) {
    Labels labels = Labels.of(labelNamesAndValues);
    return registry.scrape().stream()
        .filter(snapshot -> snapshot.getMetadata().getName().equals(name))
        .flatMap(snapshot -> switch (snapshot) {
          case CounterSnapshot counter -> counter.getDataPoints().stream()
              .filter(p -> p.getLabels().equals(labels)).map(CounterSnapshot.CounterDataPointSnapshot::getValue);
          case GaugeSnapshot gauge -> gauge.getDataPoints().stream()
              .filter(p -> p.getLabels().equals(labels)).map(GaugeSnapshot.GaugeDataPointSnapshot::getValue);
          default -> throw new IllegalArgumentException(name + " is neither a counter nor a gauge");
        })
        .findFirst().orElse(null);
  }
}
