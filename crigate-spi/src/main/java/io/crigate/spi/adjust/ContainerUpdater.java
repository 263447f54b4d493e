package io.crigate.spi.adjust;

import java.util.List;

/**
 * Delivers updates a plugin decides on outside any event, for example after a live configuration
 * switch replanned every container. Each door implements it with its own transport: CRI
 * UpdateContainerResources, NRI's unsolicited UpdateContainers.
 */
@FunctionalInterface
public interface ContainerUpdater {

  /** Applies the updates; returns those that failed and were not {@code ignoreFailure}. */
  List<ContainerUpdate> update(List<ContainerUpdate> updates);
}
