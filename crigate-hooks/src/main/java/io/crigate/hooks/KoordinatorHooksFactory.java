package io.crigate.hooks;

import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.AdjustmentPluginFactory;
import io.crigate.spi.adjust.PluginInitContext;

/** Builds the hook engine from the {@code hooks} section ({@link HookSettings}). */
public final class KoordinatorHooksFactory implements AdjustmentPluginFactory {

  public static final String TYPE = "koordinator-hooks";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public String description() {
    return "Koordinator runtime hooks: QoS class, batch resources, scheduler cpuset, GPU env";
  }

  @Override
  public AdjustmentPlugin create(PluginInitContext context) {
    return new KoordinatorHooks(HookSettings.parse(context.settings()).chain());
  }
}
