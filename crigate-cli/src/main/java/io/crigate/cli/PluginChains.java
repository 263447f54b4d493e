package io.crigate.cli;

import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.PluginEnvironment;
import io.crigate.nri.ChainHandler;
import io.crigate.nri.ConfiguredHandler;
import io.crigate.nri.NriHandler;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.PluginChain;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine chain {@code crigate nri-plugin} serves, built from the configuration the runtime passes
 * in Configure: containerd and CRI-O pass a pre-installed plugin its drop-in
 * ({@code /etc/nri/conf.d/IDX-NAME.conf}), so no wrapper file is needed. An empty configuration
 * (an external plugin's, or a plugin without a drop-in) means {@code --config}'s. A reconnect that
 * passes the same text keeps the chain and the plugins' state; a different text replaces it.
 */
final class PluginChains implements ConfiguredHandler, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PluginChains.class);

  /** The engine plugins a configuration text asks for. */
  @FunctionalInterface
  interface Source {
    /** @throws CrigateException.InvalidArgument naming the field of a bad text */
    AdjustmentPlugins parse(String text);
  }

  private final PluginEnvironment environment;
  private final Source fromText;
  private final AdjustmentPlugins fromFile;
  private String text;
  private PluginChain chain;
  private NriHandler handler;

  PluginChains(PluginEnvironment environment, Source fromText, AdjustmentPlugins fromFile) {
    this.environment = environment;
    this.fromText = fromText;
    this.fromFile = fromFile;
  }

  @Override
  public synchronized NriHandler configure(String config) {
    if (chain != null && Objects.equals(text, config)) {
      return handler;
    }
    AdjustmentPlugins plugins = config.isBlank() ? fromFile : fromText.parse(config);
    PluginChain next = new PluginChain(plugins.create(environment));
    if (next.isEmpty()) {
      throw new CrigateException.InvalidArgument(config.isBlank()
          ? "no adjustment plugin is configured (a policy or hooks section in --config or the runtime's drop-in): nothing to serve the runtime"
          : "the runtime's drop-in configures no adjustment plugin (a policy, or hooks with mode: nri): nothing to serve the runtime");
    }
    if (chain != null) {
      log.info("the runtime passed a new configuration; replacing the engine plugins");
      chain.close();
    }
    log.info("serving engine plugins {} from {}", next.plugins().stream().map(p -> p.name()).toList(),
        config.isBlank() ? "--config" : "the runtime's configuration");
    text = config;
    chain = next;
    handler = new ChainHandler(next);
    return handler;
  }

  @Override
  public synchronized void close() {
    if (chain != null) {
      chain.close();
      chain = null;
    }
  }
}
