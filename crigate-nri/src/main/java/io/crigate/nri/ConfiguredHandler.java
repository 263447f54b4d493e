package io.crigate.nri;

/**
 * Builds a plugin's {@link NriHandler} from the configuration its runtime passes in Configure: a
 * pre-installed plugin's drop-in ({@code plugin_config_path}/{@code IDX-NAME.conf} or
 * {@code NAME.conf}), empty for a plugin that connected by itself.
 */
@FunctionalInterface
public interface ConfiguredHandler {

  /**
   * Called at every Configure, i.e. once per connection.
   *
   * @throws io.crigate.spi.CrigateException.InvalidArgument naming the field of a bad configuration;
   *     Configure then fails with it, and the runtime drops the plugin
   */
  NriHandler configure(String config);
}
