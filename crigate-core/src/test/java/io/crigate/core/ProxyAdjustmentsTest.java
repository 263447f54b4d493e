package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CRI proxy door: adjustments reach the backend before the call, updates reach other containers. */
class ProxyAdjustmentsTest {

  @TempDir
  Path dir;

  /** Pins the first container to 0-1 and every later one to 2-3, moving earlier ones to 0-1; records what it sees. */
  static class Pinning implements AdjustmentPlugin {
    final List<String> seen = new ArrayList<>();
    final List<String> earlier = new ArrayList<>();
    List<ContainerContext> synchronized_ = List.of();

    @Override
    public String name() {
      return "pinning";
    }

    @Override
    public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
      synchronized_ = containers;
      return List.of();
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      seen.add("create " + pod.namespace() + "/" + pod.name() + " " + container.key());
      String cpus = earlier.isEmpty() ? "0-1" : "2-3";
      List<ContainerUpdate> updates = earlier.stream()
          .map(id -> ContainerUpdate.of(id, LinuxResources.builder().cpusetCpus("0-1").build())).toList();
      return new PluginResult(Adjustment.builder().env("PINNED", cpus)
          .resources(LinuxResources.builder().cpusetCpus(cpus).build()).build(), updates);
    }

    @Override
    public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
      earlier.add(container.id());
      return PluginResult.NONE;
    }

    @Override
    public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
      seen.add("update " + container.id() + " from " + container.resources().cpusetCpus().orElse("")
          + " asked " + requested.cpusetCpus().orElse(""));
      return PluginResult.adjust(Adjustment.of(LinuxResources.builder()
          .cpusetCpus(container.resources().cpusetCpus().orElseThrow()).build()));
    }

    @Override
    public PluginResult removeContainer(PodContext pod, ContainerContext container) {
      seen.add("remove " + container.key());
      return PluginResult.NONE;
    }
  }

  @Test
  void createContainerIsAdjustedBeforeForwardingAndOthersAreUpdated() {
    Pinning plugin = new Pinning();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String pod = crigate.runPod("web", "");
      String first = crigate.createContainer(pod, "a");
      String second = crigate.createContainer(pod, "b");

      assertThat(crigate.alpha.createdConfig(second).getLinux().getResources().getCpusetCpus()).isEqualTo("2-3");
      assertThat(crigate.alpha.createdConfig(second).getEnvsList())
          .anySatisfy(kv -> assertThat(kv.getKey() + "=" + kv.getValue().toStringUtf8()).isEqualTo("PINNED=2-3"));
      assertThat(crigate.alpha.resources(first).getCpusetCpus()).isEqualTo("0-1");
      assertThat(plugin.seen).containsExactly("create default/web " + pod + "/a/0", "create default/web " + pod + "/b/0");
    }
  }

  @Test
  void aKubeletUpdateCannotUndoAPolicyOwnedCpuset() {
    Pinning plugin = new Pinning();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String id = crigate.createContainer(crigate.runPod("web", ""), "a");

      crigate.runtime.updateContainerResources(UpdateContainerResourcesRequest.newBuilder().setContainerId(id)
          .setLinux(LinuxContainerResources.newBuilder().setCpusetCpus("0-7").setCpuShares(512)).build());

      assertThat(crigate.alpha.resources(id).getCpusetCpus()).isEqualTo("0-1");
      assertThat(crigate.alpha.resources(id).getCpuShares()).isEqualTo(512);
      assertThat(plugin.seen).contains("update " + id + " from 0-1 asked 0-7");
    }
  }

  @Test
  void aRefusedCreateReleasesWhatThePluginsReserved() {
    Pinning plugin = new Pinning();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String pod = crigate.runPod("web", "");
      crigate.alpha.setAvailable(false);

      assertThatThrownBy(() -> crigate.createContainer(pod, "a")).isInstanceOf(StatusRuntimeException.class);
      assertThat(plugin.seen).containsExactly("create default/web " + pod + "/a/0", "remove " + pod + "/a/0");
    }
  }

  @Test
  void afterARestartPluginsAreSynchronizedWithTheCpusetsContainersReallyRunWith() {
    Pinning before = new Pinning();
    Pinning after = new Pinning();
    List<Pinning> instances = new ArrayList<>(List.of(before, after));
    RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(instances.removeFirst()));
    String id = crigate.createContainer(crigate.runPod("web", ""), "a");
    String gone = crigate.createContainer(crigate.runPod("old", ""), "b");
    // While crigate is down, someone re-pins one container and removes the other.
    crigate.alpha.updateContainerResources(UpdateContainerResourcesRequest.newBuilder().setContainerId(id)
        .setLinux(LinuxContainerResources.newBuilder().setCpusetCpus("5")).build());
    crigate.alpha.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(gone).build());

    try (RouterHarness restarted = crigate.restart(true)) {
      assertThat(after.synchronized_).singleElement().satisfies(c -> {
        assertThat(c.id()).isEqualTo(id);
        assertThat(c.resources().cpusetCpus()).contains("5");
        assertThat(c.env()).containsEntry("PINNED", "0-1");
      });
    }
  }

  /** Records the pod-level events with the resources they carry. */
  static final class PodResize implements AdjustmentPlugin {
    final List<String> seen = new ArrayList<>();
    /** The pod context each CreateContainer was given. */
    final List<PodContext> creating = new ArrayList<>();

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      creating.add(pod);
      return PluginResult.NONE;
    }

    @Override
    public String name() {
      return "resize";
    }

    @Override
    public PluginResult updatePodSandboxResources(PodContext pod, LinuxResources overhead, LinuxResources resources) {
      seen.add("update " + pod.id() + " shares=" + resources.cpuShares().orElse(0));
      return PluginResult.NONE;
    }

    @Override
    public PluginResult postUpdatePodSandboxResources(PodContext pod) {
      seen.add("post-update " + pod.id());
      return PluginResult.NONE;
    }
  }

  @Test
  void aPodResizeIsAnEngineEventBeforeAndAfterTheOwnerAppliesIt() {
    PodResize plugin = new PodResize();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String pod = crigate.runPod("web", "");

      crigate.runtime.updatePodSandboxResources(UpdatePodSandboxResourcesRequest.newBuilder().setPodSandboxId(pod)
          .setResources(LinuxContainerResources.newBuilder().setCpuShares(2048)).build());

      assertThat(crigate.alpha.podResources(pod).getCpuShares()).isEqualTo(2048);
      assertThat(plugin.seen).containsExactly("update " + pod + " shares=2048", "post-update " + pod);
    }
  }

  @Test
  void aPodsContextIsBuiltOnceAndRebuiltWhenItsResourcesChange() {
    PodResize plugin = new PodResize();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String pod = crigate.runPod("web", "");
      crigate.createContainer(pod, "a");
      crigate.createContainer(pod, "b");

      crigate.runtime.updatePodSandboxResources(UpdatePodSandboxResourcesRequest.newBuilder().setPodSandboxId(pod)
          .setResources(LinuxContainerResources.newBuilder().setCpuShares(2048)).build());
      crigate.createContainer(pod, "c");

      // The second container's event reuses the first one's context instead of translating the sandbox again ...
      assertThat(plugin.creating.get(1)).isSameAs(plugin.creating.get(0));
      assertThat(plugin.creating.get(0).resources().cpuRequestMilli()).isZero();
      // ... and a resize is seen by the next event: shares 2048 are a 2 CPU request.
      assertThat(plugin.creating.get(2).resources().cpuRequestMilli()).isEqualTo(2000);
    }
  }

  @Test
  void aPodResizeTheOwnerRefusesHasNoPostEvent() {
    PodResize plugin = new PodResize();
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> List.of(plugin))) {
      String pod = crigate.runPod("web", "");
      crigate.alpha.setAvailable(false);

      assertThatThrownBy(() -> crigate.runtime.updatePodSandboxResources(UpdatePodSandboxResourcesRequest.newBuilder()
          .setPodSandboxId(pod).setResources(LinuxContainerResources.newBuilder().setCpuShares(2048)).build()))
          .isInstanceOf(StatusRuntimeException.class);
      assertThat(plugin.seen).containsExactly("update " + pod + " shares=2048");
    }
  }

  @Test
  void anEvictionStopsTheContainerThroughItsOwnerAndThePluginsSeeTheStop() {
    List<String> stops = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<io.crigate.spi.adjust.ContainerStopper> stopper =
        new java.util.concurrent.atomic.AtomicReference<>();
    AdjustmentPlugin watcher = new AdjustmentPlugin() {
      @Override
      public String name() {
        return "watcher";
      }

      @Override
      public PluginResult stopContainer(PodContext pod, ContainerContext container) {
        stops.add(container.id());
        return PluginResult.NONE;
      }
    };
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> {
      stopper.set(env.stopper());
      return List.of(watcher);
    })) {
      String id = crigate.createContainer(crigate.runPod("web", ""), "a");
      crigate.runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());

      stopper.get().stop(id, "NRI plugin 10-test", "memory pressure");
      stopper.get().stop("no-such-container", "NRI plugin 10-test", "stale");

      org.awaitility.Awaitility.await().until(() -> stops.contains(id));
      assertThat(crigate.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build())
          .getStatus().getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
      assertThat(stops).containsExactly(id);
    }
  }

  /**
   * A plugin's record of a new container (a policy's allocation) costs no commit of its own: it is
   * not on disk while the plugin decides, and is once CreateContainer has returned.
   */
  @Test
  void whatAPluginRecordsOnCreateCommitsWithTheContainersOwnershipRecord() throws Exception {
    List<Boolean> visibleWhileCreating = new ArrayList<>();
    AtomicReference<DurableStore> store = new AtomicReference<>();
    Pinning recording = new Pinning() {
      @Override
      public PluginResult createContainer(PodContext pod, ContainerContext container) {
        store.get().put("grant/" + container.key(), "root".getBytes(StandardCharsets.UTF_8));
        visibleWhileCreating.add(committedGrants() > 0);
        return super.createContainer(pod, container);
      }
    };
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, env -> {
      store.set(env.stores().apply(recording.name()));
      return List.of(recording);
    })) {
      crigate.createContainer(crigate.runPod("web", ""), "a");

      assertThat(visibleWhileCreating).containsExactly(false);
      assertThat(committedGrants()).isEqualTo(1);
    }
  }

  /** The plugin's rows another connection finds in crigate.db: what a kill -9 would leave. */
  private int committedGrants() {
    try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(GatewayState.FILE_NAME));
        var rows = connection.createStatement().executeQuery("SELECT count(*) FROM backend_entries WHERE key LIKE 'grant/%'")) {
      return rows.getInt(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void withoutPluginsRequestsPassUnchanged() {
    try (RouterHarness crigate = RouterHarness.withPlugins(dir, AdjustmentPlugins.NONE)) {
      String id = crigate.createContainer(crigate.runPod("web", ""), "a");
      assertThat(crigate.alpha.createdConfig(id).getLinux().getResources()).isEqualTo(LinuxContainerResources.getDefaultInstance());
    }
  }
}
