package io.crigate.spi.adjust;

import java.util.List;

/**
 * What one plugin (or the whole chain) answers to one lifecycle event.
 *
 * @param adjustment changes to the object of the event, applied before the runtime acts on it; for
 *     UpdateContainerResources, fields that replace those the caller asked for
 * @param updates changes to other, existing containers
 */
public record PluginResult(Adjustment adjustment, List<ContainerUpdate> updates) {

  public static final PluginResult NONE = new PluginResult(Adjustment.NONE, List.of());

  public PluginResult {
    updates = List.copyOf(updates);
  }

  public static PluginResult none() {
    return NONE;
  }

  public static PluginResult adjust(Adjustment adjustment) {
    return new PluginResult(adjustment, List.of());
  }

  public static PluginResult update(List<ContainerUpdate> updates) {
    return new PluginResult(Adjustment.NONE, updates);
  }

  public boolean isEmpty() {
    return adjustment.isEmpty() && updates.isEmpty();
  }
}
