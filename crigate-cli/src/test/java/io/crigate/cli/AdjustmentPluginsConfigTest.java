package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.crigate.core.PluginEnvironment;
import io.crigate.core.server.StateDirLock;
import io.crigate.core.state.GatewayState;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.kube.PolicyConfigMaps;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.testsupport.MockApiShutdown;
import io.crigate.topology.Fixtures;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

class AdjustmentPluginsConfigTest {

  @TempDir
  Path dir;
  private GatewayState state;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger policyConfigMaps = (Logger) LoggerFactory.getLogger(PolicyConfigMaps.class);

  /** A policy on a 4-CPU fixture with the main configuration's own policy, none. */
  private String local;
  /** The same, following node-1's ConfigMaps. */
  private String following;

  @BeforeEach
  void open() throws Exception {
    local = """
        policy:
          active: none
          reservedCpus: "0"
          sysfsRoot: %s
          kubeletCpuManagerState: %s
        """.formatted(Fixtures.copyTo("1-socket-4-core-nosmt", dir.resolve("sysfs")), dir.resolve("absent"));
    following = local + "  kubernetes: {node: node-1}\n";
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
    List<AdjustmentPlugin> plugins = AdjustmentPluginsConfig.engine("""
        policy:
          active: none
          kubernetes: {node: node-1}
        """).create(environment());
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

  /**
   * The policy ConfigMap a node applied survives a restart in the state database: with its API
   * server gone, the node resumes it rather than the file's policy. A configuration that stops
   * following ConfigMaps forgets it, so following them again later starts from the file's.
   */
  @Timeout(120)
  @Test
  void aRestartResumesThePolicyConfigMapWithoutItsApiServerUntilTheConfigurationStopsFollowingThem() throws Exception {
    rememberStaticFromAnApiServer();

    restart();
    UnreachableApi.set();
    assertThat(activePolicyAfterStart(following)).as("resumed without the API server").isEqualTo("static");
    assertThat(activePolicyAfterStart(local)).isEqualTo("none");
    assertThat(activePolicyAfterStart(following)).as("forgotten once not followed").isEqualTo("none");
  }

  /** A configuration without any policy section forgets the remembered ConfigMap as well. */
  @Timeout(120)
  @Test
  void aConfigurationWithoutAPolicyForgetsTheRememberedConfigMap() throws Exception {
    rememberStaticFromAnApiServer();

    restart();
    UnreachableApi.set();
    for (AdjustmentPlugin plugin : AdjustmentPluginsConfig.engine("{}").create(environment())) {
      plugin.close();
    }
    assertThat(activePolicyAfterStart(following)).isEqualTo("none");
  }

  /**
   * {@code crigate policies forget-configmap} (CRI Resource Manager's --reset-config) on a stopped
   * node: the next start without the API server serves the file's policy, and a second run says
   * there is nothing left to forget.
   */
  @Timeout(120)
  @Test
  void forgetConfigMapOnAStoppedNodeStopsTheNextStartResumingIt() throws Exception {
    rememberStaticFromAnApiServer();
    state.close();

    Ran first = forgetConfigMap("--state-dir", dir.toString());
    assertThat(first.exit()).isZero();
    assertThat(first.out()).matches("forgot the policy ConfigMap kube-system/crigate-config\\.default "
        + "\\(resourceVersion \\d+, chosen for node node-1\\); the next start serves the configuration file's "
        + "policy until the API server answers\\R");
    assertThat(forgetConfigMap("--state-dir", dir.toString()).out())
        .isEqualTo("nothing to forget: no policy ConfigMap is remembered in " + dir + System.lineSeparator());

    state = GatewayState.open(dir);
    UnreachableApi.set();
    assertThat(activePolicyAfterStart(following)).isEqualTo("none");
  }

  /** A crigate running on the state directory would remember the ConfigMap again: the command refuses, and keeps it. */
  @Timeout(120)
  @Test
  void forgetConfigMapRefusesWhileACrigateHoldsTheStateDirectory() throws Exception {
    rememberStaticFromAnApiServer();

    Ran refused;
    try (StateDirLock running = StateDirLock.acquire(dir)) {
      refused = forgetConfigMap("--state-dir", dir.toString());
    }
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).startsWith("crigate policies forget-configmap: state dir " + dir
        + " is in use by another crigate (pid " + ProcessHandle.current().pid() + ")");
    restart();
    UnreachableApi.set();
    assertThat(activePolicyAfterStart(following)).as("still remembered").isEqualTo("static");
  }

  /** A state directory that does not exist is not created: there is nothing in it to forget. */
  @Test
  void forgetConfigMapLeavesAMissingStateDirectoryMissing() {
    Path missing = dir.resolve("never-started");
    Ran ran = forgetConfigMap("--state-dir", missing.toString());
    assertThat(ran.exit()).isZero();
    assertThat(ran.out()).isEqualTo("nothing to forget: no state database in " + missing + System.lineSeparator());
    assertThat(missing).doesNotExist();
  }

  private record Ran(int exit, String out, String err) {}

  private static Ran forgetConfigMap(String... options) {
    CommandLine cli = Main.commandLine("policies");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of("policies", "forget-configmap"));
    args.addAll(List.of(options));
    int exit = cli.execute(args.toArray(String[]::new));
    return new Ran(exit, out.toString(), err.toString());
  }

  /**
   * How long a start without a remembered ConfigMap waits for an API server that takes the
   * connection and never answers. nri-plugin waits 2 s, not serve's 10: the runtime gives a launched
   * plugin 5 s from its start to be configured. {@code policy.kubernetes.startWait} replaces either.
   */
  @Timeout(60)
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {"{node: node-1}|2", "{node: node-1, startWait: 1s}|1"})
  void aSilentApiServerIsWaitedForTheCommandsTimeOrStartWait(String kubernetes, int seconds) throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      UnreachableApi.pointAt("http://127.0.0.1:" + silent.getLocalPort());
      List<AdjustmentPlugin> plugins =
          AdjustmentPluginsConfig.engine(local + "  kubernetes: " + kubernetes + "\n").create(environment());
      try {
        assertThat(activePolicy(plugins)).isEqualTo("none");
        assertThat(logs.list).filteredOn(event -> event.getLevel() == Level.WARN)
            .anySatisfy(event -> assertThat(event.getFormattedMessage()).contains("(no answer within " + seconds + " s)"));
      } finally {
        for (AdjustmentPlugin plugin : plugins) {
          plugin.close();
        }
      }
    }
  }

  /** A first run whose API server chooses crigate-config.default, active: static, for node-1. */
  private void rememberStaticFromAnApiServer() throws Exception {
    KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    api.init(InetAddress.getLoopbackAddress(), 0);
    try (KubernetesClient admin = api.createClient()) {
      admin.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build()).create();
      admin.configMaps().inNamespace("kube-system").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("crigate-config.default").endMetadata().withData(Map.of("policy", "active: static")).build()).create();
    }
    UnreachableApi.pointAt("http://127.0.0.1:" + api.getPort());
    List<AdjustmentPlugin> plugins = AdjustmentPluginsConfig.engine(following).create(environment());
    try {
      assertThat(activePolicy(plugins)).isEqualTo("static");
    } finally {
      // the API server first: a watch closed while it runs can hang its shutdown
      MockApiShutdown.stopServerThenClose(api, plugins.toArray(AutoCloseable[]::new));
    }
  }

  private PluginEnvironment environment() {
    return new PluginEnvironment(dir, name -> state.backendStore(PluginEnvironment.namespace(name)),
        updates -> List.of(), (id, by, reason) -> {}, Clock.systemUTC());
  }

  private void restart() {
    state.close();
    state = GatewayState.open(dir);
  }

  private String activePolicyAfterStart(String configuration) throws Exception {
    List<AdjustmentPlugin> plugins = AdjustmentPluginsConfig.engine(configuration).create(environment());
    try {
      return activePolicy(plugins);
    } finally {
      for (AdjustmentPlugin plugin : plugins) {
        plugin.close();
      }
    }
  }

  private static String activePolicy(List<AdjustmentPlugin> plugins) {
    return ((ActivePolicy) plugins.getFirst()).active();
  }
}
