package io.crigate.metrics;

import io.crigate.spi.DurableStore;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/** A {@link DurableStore} whose writes (each one a committed transaction) are timed. */
final class MeteredDurableStore implements DurableStore {

  /** The histogram all stores share, labelled by store. */
  static final class Writes {
    private final Histogram latency;

    Writes(PrometheusRegistry registry) {
      latency = Histogram.builder().name("crigate_db_write_duration_seconds").unit(Unit.SECONDS)
          .help("Committed writes to crigate's state database, by store").labelNames("store")
          .classicOnly().classicUpperBounds(Buckets.WRITE_SECONDS).register(registry);
    }

    DurableStore of(String store, DurableStore delegate) {
      return new MeteredDurableStore(delegate, latency.labelValues(store));
    }

    /** Observes durations in nanoseconds under {@code store}, for writes that are not a DurableStore's. */
    LongConsumer nanosOf(String store) {
      DistributionDataPoint point = latency.labelValues(store);
      return nanos -> point.observe(nanos / 1e9);
    }
  }

  private final DurableStore delegate;
  private final DistributionDataPoint latency;

  private MeteredDurableStore(DurableStore delegate, DistributionDataPoint latency) {
    this.delegate = delegate;
    this.latency = latency;
  }

  @Override
  public void put(String key, byte[] value) {
    long start = System.nanoTime();
    delegate.put(key, value);
    latency.observe((System.nanoTime() - start) / 1e9);
  }

  @Override
  public void putAll(Map<String, byte[]> entries) {
    long start = System.nanoTime();
    delegate.putAll(entries);
    latency.observe((System.nanoTime() - start) / 1e9);
  }

  @Override
  public void remove(String key) {
    long start = System.nanoTime();
    delegate.remove(key);
    latency.observe((System.nanoTime() - start) / 1e9);
  }

  @Override
  public Optional<byte[]> get(String key) {
    return delegate.get(key);
  }

  @Override
  public Map<String, byte[]> entries() {
    return delegate.entries();
  }
}
