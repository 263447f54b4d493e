package io.crigate.cli;

import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.state.GatewayState;
import io.crigate.nri.ChainHandler;
import io.crigate.nri.NriPlugin;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.PluginChain;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * crigate's adjustment engine as an NRI plugin: the chain built as {@code serve} builds it, with
 * durable plugin state in the state dir, served to the runtime through {@link ChainHandler}; updates
 * the plugins decide outside an event go to the runtime as unsolicited UpdateContainers.
 */
final class PluginMode implements AutoCloseable {

  private final GatewayState state;
  private final PluginChain chain;
  private final NriPlugin plugin;

  private PluginMode(GatewayState state, PluginChain chain, NriPlugin plugin) {
    this.state = state;
    this.chain = chain;
    this.plugin = plugin;
  }

  /**
   * Builds the chain and connects; registration and reconnects run in the background.
   *
   * @throws CrigateException.InvalidArgument when no plugin is configured: there would be nothing to serve
   */
  static PluginMode start(NriPlugin.Settings settings, AdjustmentPlugins plugins, Path stateDir) {
    GatewayState state = GatewayState.open(stateDir);
    AtomicReference<NriPlugin> connected = new AtomicReference<>();
    PluginEnvironment environment = new PluginEnvironment(stateDir,
        name -> state.backendStore(PluginEnvironment.namespace(name)), updates -> connected.get().update(updates),
        Clock.systemUTC());
    PluginChain chain;
    try {
      chain = new PluginChain(plugins.create(environment));
      if (chain.isEmpty()) {
        throw new CrigateException.InvalidArgument(
            "no adjustment plugin is configured (a policy or hooks section in --config): nothing to serve the runtime");
      }
    } catch (RuntimeException e) {
      state.close();
      throw e;
    }
    NriPlugin plugin = new NriPlugin(settings, new ChainHandler(chain));
    connected.set(plugin);
    return new PluginMode(state, chain, plugin.start());
  }

  /** Completes when the plugin stops for good: closed, told to shut down, or its inherited connection lost. */
  CompletableFuture<Void> stopped() {
    return plugin.stopped();
  }

  @Override
  public void close() {
    plugin.close();
    chain.close();
    state.close();
  }
}
