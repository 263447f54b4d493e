package io.crigate.nri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.Mount;
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
import org.slf4j.LoggerFactory;

/**
 * Both NRI doors of the adjustment engine in one loop: an engine plugin served by crigate in
 * plugin mode ({@link ChainHandler} on {@link NriPlugin}) is hosted by crigate in runtime mode
 * ({@link NriRuntime} behind {@link NriHostedPlugins}), and the proxy-side chain gets its adjustment back.
 */
class EngineThroughNriTest {

  @TempDir
  Path dir;

  private static final PodContext POD = new PodContext("pod-1", "web", "default", "uid-1", QosClass.BURSTABLE, Map.of(),
      Map.of(), "", "", ResourceRequirements.NONE, Map.of());
  private static final ContainerContext CONTAINER = new ContainerContext(new ContainerKey("pod-1", "app", 0), "", Map.of(),
      Map.of(), Map.of("PATH", "/bin"), ResourceRequirements.NONE, LinuxResources.NONE);

  /** The engine plugin under test: an env var, a CPU limit of half a CPU and two mounts, one read-only. */
  private static final class Inject implements AdjustmentPlugin {
    static final Adjustment ADJUSTMENT = Adjustment.builder().env("INJECTED_BY", "nri-plugin")
        .resources(LinuxResources.builder().cpuQuota(50_000).cpuPeriod(100_000).build())
        .mount(Mount.samePath("/usr/local/vgpu/libvgpu.so")).mount(new Mount("/etc/hami", "/opt/hami/etc", true)).build();

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

      PluginResult result = proxySide.createContainer(POD, CONTAINER);

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

  /**
   * An external NRI plugin (a Go one would send the same) adding mounts in spellings crigate carries and
   * in others: the engine gets the clean ones, and one warning line names the rest with their plugin.
   */
  @Test
  void aHostedPluginsCleanMountsReachTheEngineAndOneWarningNamesTheDroppedOnes() throws Exception {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger(NriHostedPlugins.class);
    log.start();
    logger.addAppender(log);
    CreateContainerResponse answer = CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
        .addMounts(nriMount("/tmp/vgpulock", "bind", "rbind"))
        .addMounts(nriMount("/usr/local/vgpu/libvgpu.so", "bind", "ro", "rbind"))
        .addMounts(nriMount("/data", "bind", "rbind", "rprivate", "rw"))
        .addMounts(nriMount("/scratch", "tmpfs", "rbind"))).build();
    try (NriRuntime runtime = new NriRuntime(NriRuntime.Settings.defaults(dir.resolve("nri.sock")),
            () -> new NriRuntime.State(List.of(), List.of()), updates -> List.of(), (id, by, reason) -> {}).start();
        NriPlugin external = new NriPlugin(new NriPlugin.Settings("gpu", "10", dir.resolve("nri.sock"), -1), new NriHandler() {
          @Override
          public Set<Event> events() {
            return Set.of(Event.CREATE_CONTAINER);
          }

          @Override
          public CreateContainerResponse createContainer(io.crigate.api.nri.v1alpha1.PodSandbox pod,
              io.crigate.api.nri.v1alpha1.Container container) {
            return answer;
          }
        }).start();
        PluginChain proxySide = new PluginChain(List.of(new NriHostedPlugins(runtime)))) {
      await().until(() -> runtime.plugins().equals(List.of("10-gpu")));

      PluginResult result = proxySide.createContainer(POD, CONTAINER);

      assertThat(result.adjustment()).isEqualTo(Adjustment.builder().mount(Mount.samePath("/tmp/vgpulock"))
          .mount(new Mount("/usr/local/vgpu/libvgpu.so", "/usr/local/vgpu/libvgpu.so", true)).build());
      assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
          "container web/app: NRI plugins' mounts dropped, crigate carries only type bind with options [rbind] or "
              + "[rbind, ro] at absolute paths, one per path: [10-gpu: /data:/data (bind [rbind, rprivate, rw]), "
              + "10-gpu: /scratch:/scratch (tmpfs [rbind])]");
    } finally {
      logger.detachAppender(log);
    }
  }

  private static io.crigate.api.nri.v1alpha1.Mount nriMount(String path, String type, String... options) {
    return io.crigate.api.nri.v1alpha1.Mount.newBuilder().setSource(path).setDestination(path).setType(type)
        .addAllOptions(List.of(options)).build();
  }

  @Test
  void adjustmentsSurviveTheRoundTripThroughNriMessages() {
    Adjustment full = Adjustment.builder().env("A", "1").annotation("k", "v").oomScoreAdj(-500)
        .mount(Mount.samePath("/tmp/vgpulock")).mount(new Mount("/etc/x", "/opt/x", true))
        .resources(LinuxResources.builder().cpuShares(512).cpuQuota(20_000).cpuPeriod(100_000).cpusetCpus("0-1")
            .cpusetMems("0").memoryLimit(1L << 30).unified("memory.high", "max").build()).build();
    assertThat(NriTranslation.adjustment(NriTranslation.adjustment(full))).isEqualTo(full);
    assertThat(NriTranslation.adjustment(NriTranslation.adjustment(Adjustment.NONE))).isEqualTo(Adjustment.NONE);
  }
}
