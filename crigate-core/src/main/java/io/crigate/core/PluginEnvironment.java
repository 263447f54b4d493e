package io.crigate.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.ContainerStopper;
import io.crigate.spi.adjust.ContainerUpdater;
import io.crigate.spi.adjust.PluginInitContext;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Function;

/**
 * What the gateway offers adjustment plugins.
 *
 * @param stateDir the gateway's state directory; each plugin gets {@code plugins/<name>} inside it
 * @param stores a durable namespace per plugin name, apart from every backend's
 * @param updater UpdateContainerResources through the gateway's routing
 * @param stopper carries out evictions (hosted NRI plugins ask for them): StopContainer through the gateway's routing
 * @param clock the time source
 * @param metrics the registry the plugins' own metrics go into
 */
public record PluginEnvironment(Path stateDir, Function<String, DurableStore> stores, ContainerUpdater updater,
    ContainerStopper stopper, Clock clock, PrometheusRegistry metrics) {

  /** An environment whose plugins' metrics go nowhere (crigate nri-plugin serves none). */
  public PluginEnvironment(Path stateDir, Function<String, DurableStore> stores, ContainerUpdater updater,
      ContainerStopper stopper, Clock clock) {
    this(stateDir, stores, updater, stopper, clock, new PrometheusRegistry());
  }

  /** The durable namespace of plugin {@code name}; a prefix no backend name can start with keeps them apart. */
  public static String namespace(String name) {
    return "@plugin:" + name;
  }

  public PluginInitContext context(String name, JsonNode settings) {
    Path dir = stateDir.resolve("plugins").resolve(name);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create state dir of plugin " + name, e);
    }
    return new PluginInitContext(name, settings, dir, stores.apply(name), updater, clock, metrics);
  }
}
