package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.state.GatewayState;
import io.crigate.policy.kube.PolicyConfigMaps;
import io.crigate.spi.adjust.AdjustmentPlugin;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class AdjustmentPluginsConfigTest {

  @TempDir
  Path dir;
  private GatewayState state;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger policyConfigMaps = (Logger) LoggerFactory.getLogger(PolicyConfigMaps.class);

  @BeforeEach
  void open() {
    state = GatewayState.open(dir);
    logs.start();
    policyConfigMaps.addAppender(logs);
  }

  @AfterEach
  void close() {
    policyConfigMaps.detachAppender(logs);
    UnreachableApi.clear();
    state.close();
  }

  /**
   * A node whose API server refuses connections starts on its file configuration at once, naming
   * why, rather than after the ConfigMaps' whole start-up wait: fabric8's own retries inside a
   * request outlast that wait and hid the refusal behind "no answer".
   */
  @Timeout(60)
  @Test
  void aRefusedApiServerIsNamedWhenThePolicyStartsWithoutItsConfigMaps() throws Exception {
    UnreachableApi.setKeepingRequestRetries();
    PluginEnvironment environment = new PluginEnvironment(dir, name -> state.backendStore(PluginEnvironment.namespace(name)),
        updates -> List.of(), (id, by, reason) -> {}, Clock.systemUTC());

    List<AdjustmentPlugin> plugins = AdjustmentPluginsConfig.engine("""
        policy:
          active: none
          kubernetes: {node: node-1}
        """).create(environment);
    try {
      assertThat(logs.list).filteredOn(event -> event.getLevel() == Level.WARN)
          .anySatisfy(event -> assertThat(event.getFormattedMessage())
              .startsWith("policy ConfigMaps not read from https://127.0.0.1:1/ (")
              .contains("Connection refused"));
    } finally {
      for (AdjustmentPlugin plugin : plugins) {
        plugin.close();
      }
    }
  }
}
