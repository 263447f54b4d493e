package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.KeyValue;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.core.AdjustmentPlugins;
import io.crigate.core.server.StateDirLock;
import io.crigate.nri.NriPlugin;
import io.crigate.nri.NriRuntime;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.ContainerUpdater;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** crigate nri-plugin's core: the engine chain served to an NRI runtime (crigate's own host mode here). */
class PluginModeTest {

  @TempDir
  Path dir;

  /** An engine plugin: an env var at CreateContainer. */
  private static final class EnvPlugin implements AdjustmentPlugin {
    @Override
    public String name() {
      return "env";
    }

    @Override
    public Set<LifecycleEvent> events() {
      return Set.of(LifecycleEvent.CREATE_CONTAINER);
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      return PluginResult.adjust(Adjustment.builder().env("FROM_ENGINE", pod.name()).build());
    }
  }

  @Test
  void theEngineAnswersTheRuntimesEventsAndPushesUnsolicitedUpdates() throws Exception {
    List<io.crigate.api.nri.v1alpha1.ContainerUpdate> received = new CopyOnWriteArrayList<>();
    AtomicReference<ContainerUpdater> updater = new AtomicReference<>();
    AdjustmentPlugins plugins = environment -> {
      updater.set(environment.updater());
      return List.of(new EnvPlugin());
    };
    Path socket = dir.resolve("nri.sock");
    try (NriRuntime runtime = new NriRuntime(NriRuntime.Settings.defaults(socket),
            () -> new NriRuntime.State(List.of(), List.of()), updates -> {
              received.addAll(updates);
              return List.of();
            }, (id, by, reason) -> {}).start();
        PluginMode mode = PluginMode.start(new NriPlugin.Settings("crigate", "50", socket, -1), text -> AdjustmentPlugins.NONE,
            plugins, dir.resolve("state"))) {
      await().until(() -> runtime.plugins().equals(List.of("50-crigate")));

      NriRuntime.Creation created = runtime.createContainer(
          PodSandbox.newBuilder().setId("pod-1").setName("web").build(),
          Container.newBuilder().setPodSandboxId("pod-1").setName("app").build());
      assertThat(created.adjustment().getEnvList())
          .containsExactly(KeyValue.newBuilder().setKey("FROM_ENGINE").setValue("web").build());

      List<ContainerUpdate> failed = updater.get().update(
          List.of(ContainerUpdate.of("ctr-1", LinuxResources.builder().cpuShares(256).build())));
      assertThat(failed).isEmpty();
      assertThat(received).singleElement().satisfies(u -> {
        assertThat(u.getContainerId()).isEqualTo("ctr-1");
        assertThat(u.getLinux().getResources().getCpu().getShares().getValue()).isEqualTo(256);
      });
    }
  }

  @Test
  void refusesToStartWhenNoEnginePluginIsConfigured() {
    assertThatThrownBy(() -> PluginMode.start(new NriPlugin.Settings("crigate", "50", dir.resolve("nri.sock"), -1),
        AdjustmentPluginsConfig::engine, AdjustmentPlugins.NONE, dir.resolve("state")))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("nothing to serve");
    StateDirLock.acquire(dir.resolve("state")).close(); // a refused start leaves the directory free
  }

  /** As serve: a second process on one state directory would write the same database; it is refused, naming the first. */
  @Test
  void aSecondPluginOnTheSameStateDirectoryIsRefused() throws Exception {
    AdjustmentPlugins plugins = environment -> List.of(new EnvPlugin());
    Path socket = dir.resolve("nri.sock");
    try (NriRuntime runtime = new NriRuntime(NriRuntime.Settings.defaults(socket),
            () -> new NriRuntime.State(List.of(), List.of()), updates -> List.of(), (id, by, reason) -> {}).start();
        PluginMode first = PluginMode.start(new NriPlugin.Settings("crigate", "50", socket, -1), text -> AdjustmentPlugins.NONE,
            plugins, dir.resolve("state"))) {
      assertThatThrownBy(() -> PluginMode.start(new NriPlugin.Settings("crigate", "51", socket, -1),
          text -> AdjustmentPlugins.NONE, plugins, dir.resolve("state")))
          .isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessageContaining("is in use by another crigate (pid " + ProcessHandle.current().pid() + ")");
    }
    StateDirLock.acquire(dir.resolve("state")).close(); // released by close
  }
}
