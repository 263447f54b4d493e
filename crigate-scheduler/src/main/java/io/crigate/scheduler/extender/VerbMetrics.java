package io.crigate.scheduler.extender;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Latency of the extender's verbs, and the text exposition of its registry. */
final class VerbMetrics {

  final DistributionDataPoint prioritize;
  final DistributionDataPoint filter;
  private final PrometheusRegistry registry;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  VerbMetrics(PrometheusRegistry registry) {
    this.registry = registry;
    // kube-scheduler waits for every pod: 5,000 nodes score in about a millisecond (docs/benchmarks.md)
    Histogram latency = Histogram.builder().name("crigate_extender_request_duration_seconds").unit(Unit.SECONDS)
        .help("kube-scheduler extender calls, from request to answer, by verb").labelNames("verb").classicOnly()
        .classicUpperBounds(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1)
        .register(registry);
    prioritize = latency.labelValues("prioritize");
    filter = latency.labelValues("filter");
  }

  /** The registry in Prometheus text format, whose content type is {@link PrometheusTextFormatWriter#CONTENT_TYPE}. */
  byte[] scrape() {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try {
      writer.write(text, registry.scrape(), io.prometheus.metrics.config.EscapingScheme.UNDERSCORE_ESCAPING);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return text.toByteArray();
  }
}
