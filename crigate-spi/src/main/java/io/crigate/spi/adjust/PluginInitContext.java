package io.crigate.spi.adjust;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.DurableStore;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Everything an {@link AdjustmentPluginFactory} is given, mirroring {@link io.crigate.spi.InitContext}.
 *
 * @param name the plugin's configured name
 * @param settings the plugin's own configuration section
 * @param stateDir a directory only this plugin writes to
 * @param store durable records in the plugin's own namespace (e.g. CPU allocations)
 * @param updater delivers updates decided outside an event
 * @param clock the time source
 * @param metrics where the plugin registers its own metrics (names start with {@code crigate_});
 *     exported on /metrics when metrics are enabled
 */
public record PluginInitContext(String name, JsonNode settings, Path stateDir, DurableStore store,
    ContainerUpdater updater, Clock clock, PrometheusRegistry metrics) {

  /** A context whose metrics go nowhere. */
  public PluginInitContext(String name, JsonNode settings, Path stateDir, DurableStore store, ContainerUpdater updater,
      Clock clock) {
    this(name, settings, stateDir, store, updater, clock, new PrometheusRegistry());
  }
}
