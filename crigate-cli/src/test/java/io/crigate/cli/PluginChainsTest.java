package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.state.GatewayState;
import io.crigate.nri.NriHandler;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nri-plugin's chain from the configuration a runtime passes in Configure (a pre-installed plugin's drop-in). */
class PluginChainsTest {

  private static final String GPU_HOOKS = """
      hooks:
        mode: nri
        GPUEnvInject: {order: 400, failurePolicy: fail-closed, enabled: true}
      """;

  @TempDir
  Path dir;
  private GatewayState state;
  private PluginEnvironment environment;

  @BeforeEach
  void open() {
    state = GatewayState.open(dir);
    environment = new PluginEnvironment(dir, name -> state.backendStore(PluginEnvironment.namespace(name)),
        updates -> List.of(), (id, by, reason) -> {}, Clock.systemUTC());
  }

  @AfterEach
  void close() {
    state.close();
  }

  @Test
  void theDropInConfiguresTheChainAndTheSameTextAgainKeepsIt() {
    try (PluginChains chains = new PluginChains(environment, AdjustmentPluginsConfig::engine, AdjustmentPlugins.NONE)) {
      NriHandler first = chains.configure(GPU_HOOKS);

      assertThat(first.events()).contains(Event.CREATE_CONTAINER);
      assertThat(chains.configure(GPU_HOOKS)).as("a reconnect with the same drop-in").isSameAs(first);
      assertThat(chains.configure(GPU_HOOKS.replace("400", "300"))).as("a changed drop-in").isNotSameAs(first);
    }
  }

  @Test
  void anEmptyConfigurationMeansTheConfigFile() {
    try (PluginChains chains = new PluginChains(environment, AdjustmentPluginsConfig::engine,
        AdjustmentPluginsConfig.engine(GPU_HOOKS))) {
      assertThat(chains.configure("").events()).contains(Event.CREATE_CONTAINER);
    }
    try (PluginChains chains = new PluginChains(environment, AdjustmentPluginsConfig::engine, AdjustmentPlugins.NONE)) {
      assertThatThrownBy(() -> chains.configure("")).isInstanceOf(CrigateException.InvalidArgument.class)
          .hasMessageContaining("nothing to serve");
    }
  }

  @Test
  void aBadDropInIsRefusedNamingWhatIsWrong() {
    try (PluginChains chains = new PluginChains(environment, AdjustmentPluginsConfig::engine, AdjustmentPlugins.NONE)) {
      assertThatThrownBy(() -> chains.configure("polcy: {active: static}"))
          .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unknown section 'polcy'");
      assertThatThrownBy(() -> chains.configure(GPU_HOOKS.replace("fail-closed", "sometimes")))
          .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("hooks.GPUEnvInject.failurePolicy");
      assertThatThrownBy(() -> chains.configure("- just\n- a list"))
          .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("YAML map");
      assertThatThrownBy(() -> chains.configure("hooks:\n  mode: proxy\n"))
          .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("configures no adjustment plugin");
    }
  }
}
