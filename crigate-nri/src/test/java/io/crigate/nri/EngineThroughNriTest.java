package io.crigate.nri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceRequirements;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both NRI doors of the adjustment engine in one loop: an engine plugin served by crigate in
 * plugin mode ({@link ChainHandler} on {@link NriPlugin}) is hosted by crigate in runtime mode
 * ({@link NriRuntime} behind {@link NriHostedPlugins}), and the proxy-side chain gets its adjustment back.
 */
class EngineThroughNriTest {

  @TempDir
  Path dir;

  /** The engine plugin under test: an env var and a CPU limit of half a CPU. */
  private static final class Inject implements AdjustmentPlugin {
    static final Adjustment ADJUSTMENT = Adjustment.builder().env("INJECTED_BY", "nri-plugin")
        .resources(LinuxResources.builder().cpuQuota(50_000).cpuPeriod(100_000).build()).build();

    @Override
    public String name() {
      return "inject";
    }

    @Override
    public Set<LifecycleEvent> events() {
      return Set.of(LifecycleEvent.CREATE_CONTAINER);
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      return PluginResult.adjust(ADJUSTMENT);
    }
  }

  @Test
  void anEnginePluginServedOverNriAdjustsAContainerOnTheProxyPath() throws Exception {
    try (NriRuntime runtime = new NriRuntime(NriRuntime.Settings.defaults(dir.resolve("nri.sock")),
            () -> new NriRuntime.State(List.of(), List.of()), updates -> List.of(), (id, by, reason) -> {}).start();
        ChainHandlerPlugin served = new ChainHandlerPlugin(dir.resolve("nri.sock"));
        PluginChain proxySide = new PluginChain(List.of(new NriHostedPlugins(runtime)))) {
      await().until(() -> runtime.plugins().equals(List.of("50-crigate")));

      PodContext pod = new PodContext("pod-1", "web", "default", "uid-1", QosClass.BURSTABLE, Map.of(), Map.of(), "",
          "", ResourceRequirements.NONE, Map.of());
      ContainerContext ctr = new ContainerContext(new ContainerKey("pod-1", "app", 0), "", Map.of(), Map.of(),
          Map.of("PATH", "/bin"), ResourceRequirements.NONE, LinuxResources.NONE);
      PluginResult result = proxySide.createContainer(pod, ctr);

      assertThat(result.adjustment()).isEqualTo(Inject.ADJUSTMENT);
      // plugin mode subscribed to exactly what the engine plugin wants
      assertThat(served.handler.events()).containsExactly(Event.CREATE_CONTAINER);
    }
  }

  /** crigate in plugin mode with a chain of one engine plugin. */
  private static final class ChainHandlerPlugin implements AutoCloseable {
    final ChainHandler handler = new ChainHandler(new PluginChain(List.of(new Inject())));
    final NriPlugin plugin;

    ChainHandlerPlugin(Path socket) {
      plugin = new NriPlugin(new NriPlugin.Settings("crigate", "50", socket, -1), handler).start();
    }

    @Override
    public void close() {
      plugin.close();
    }
  }

  @Test
  void adjustmentsSurviveTheRoundTripThroughNriMessages() {
    Adjustment full = Adjustment.builder().env("A", "1").annotation("k", "v").oomScoreAdj(-500)
        .resources(LinuxResources.builder().cpuShares(512).cpuQuota(20_000).cpuPeriod(100_000).cpusetCpus("0-1")
            .cpusetMems("0").memoryLimit(1L << 30).unified("memory.high", "max").build()).build();
    assertThat(NriTranslation.adjustment(NriTranslation.adjustment(full))).isEqualTo(full);
    assertThat(NriTranslation.adjustment(NriTranslation.adjustment(Adjustment.NONE))).isEqualTo(Adjustment.NONE);
  }
}
