package io.crigate.cli;

import io.crigate.api.nri.v1alpha1.ContainerEviction;
import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.server.StateDirLock;
import io.crigate.core.state.GatewayState;
import io.crigate.nri.NriPlugin;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * crigate's adjustment engine as an NRI plugin: the chain built as {@code serve} builds it, with
 * durable plugin state in the state dir, served to the runtime through {@link PluginChains}; updates
 * the plugins decide outside an event go to the runtime as unsolicited UpdateContainers.
 */
final class PluginMode implements AutoCloseable {

  private final StateDirLock lock;
  private final GatewayState state;
  private final PluginChains chains;
  private final NriPlugin plugin;

  private PluginMode(StateDirLock lock, GatewayState state, PluginChains chains, NriPlugin plugin) {
    this.lock = lock;
    this.state = state;
    this.chains = chains;
    this.plugin = plugin;
  }

  /**
   * Connects; registration and reconnects run in the background. The chain comes from the
   * configuration the runtime passes in Configure (a pre-installed plugin's drop-in) or, when it passes
   * none, from {@code fromFile} ({@code --config}), which is built at once so a bad file stops the start.
   *
   * @param fromText the engine plugins a configuration text asks for
   * @param fromFile the engine plugins of {@code --config}; {@link AdjustmentPlugins#NONE} without one
   * @throws CrigateException.InvalidArgument when the file configures nothing and no runtime launched
   *     crigate, so no drop-in can come: there would be nothing to serve
   * @throws CrigateException.FailedPrecondition when another crigate holds the state directory
   */
  static PluginMode start(NriPlugin.Settings settings, PluginChains.Source fromText, AdjustmentPlugins fromFile,
      Path stateDir) {
    // as serve's: two processes must not both write one database, and a stopped node's commands
    // (policies forget-configmap) must see that one runs
    StateDirLock lock = StateDirLock.acquire(stateDir);
    GatewayState state;
    try {
      state = GatewayState.open(stateDir);
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
    AtomicReference<NriPlugin> connected = new AtomicReference<>();
    PluginEnvironment environment = new PluginEnvironment(stateDir,
        name -> state.backendStore(PluginEnvironment.namespace(name)), updates -> connected.get().update(updates),
        // the runtime owns the lifecycle here: an eviction goes to it, as NRI's own plugins send theirs
        (id, by, reason) -> connected.get().updateContainers(List.of(),
            List.of(ContainerEviction.newBuilder().setContainerId(id).setReason(reason).build())),
        Clock.systemUTC());
    PluginChains chains = new PluginChains(environment, fromText, fromFile);
    try {
      if (fromFile != AdjustmentPlugins.NONE || settings.fd() < 0) {
        chains.configure("");
      }
    } catch (RuntimeException e) {
      chains.close();
      state.close();
      lock.close();
      throw e;
    }
    NriPlugin plugin = new NriPlugin(settings, chains);
    connected.set(plugin);
    return new PluginMode(lock, state, chains, plugin.start());
  }

  /** Completes when the plugin stops for good: closed, told to shut down, or its inherited connection lost. */
  CompletableFuture<Void> stopped() {
    return plugin.stopped();
  }

  @Override
  public void close() {
    plugin.close();
    chains.close();
    state.close();
    lock.close();
  }
}
