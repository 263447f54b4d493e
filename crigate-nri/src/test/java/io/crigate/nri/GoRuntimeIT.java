package io.crigate.nri;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.nri.v1alpha1.ContainerEviction;
import io.crigate.api.nri.v1alpha1.LinuxCPU;
import io.crigate.api.nri.v1alpha1.LinuxContainerUpdate;
import io.crigate.api.nri.v1alpha1.OptionalUInt64;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LifecycleEvent;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.testsupport.GoNriPeers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * crigate's plugin mode driven by a Go "runtime": containerd's Go ttrpc with the NRI API generated
 * for Go from crigate's own proto by the protoc-gen-gogottrpc Debian ships. The Go side registers
 * the plugin, configures it, synchronizes it in two parts, asks CreateContainer (the answers come
 * from crigate's adjustment engine) and sends v0.12.2's UpdatePodSandbox. Then the plugin sends unsolicited updates and an eviction,
 * and gets back the update the Go side could not apply.
 */
class GoRuntimeIT {

  @TempDir
  Path dir;

  /** The engine plugin: env and a CPU quota at CreateContainer, and what Synchronize brought. */
  private static final class Engine implements AdjustmentPlugin {
    volatile List<String> synced = List.of();

    @Override
    public String name() {
      return "engine";
    }

    @Override
    public Set<LifecycleEvent> events() {
      return Set.of(LifecycleEvent.CREATE_CONTAINER, LifecycleEvent.REMOVE_CONTAINER);
    }

    @Override
    public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
      synced = java.util.stream.Stream.concat(pods.stream().map(PodContext::id), containers.stream().map(ContainerContext::id)).toList();
      return List.of();
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      return PluginResult.adjust(Adjustment.builder().env("FROM_JAVA", pod.name() + "/" + container.name())
          .resources(LinuxResources.builder().cpuQuota(25_000).build()).build());
    }
  }

  @Test
  void aGoRuntimeRegistersConfiguresSynchronizesAndCreatesThroughCrigatesPlugin() throws Exception {
    Path runtime = GoNriPeers.in(Path.of("target/go-nri")).build("nriruntime");
    Path socket = dir.resolve("nri.sock");
    Process go = new ProcessBuilder(runtime.toString(), "-expect-update", socket.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(go.getInputStream(), UTF_8));
    assertThat(out.readLine()).isEqualTo("LISTENING");
    Engine engine = new Engine();
    try (NriPlugin plugin = new NriPlugin(new NriPlugin.Settings("crigate", "42", socket, -1),
        new ChainHandler(new PluginChain(List.of(engine)))).start()) {
      int mask = (1 << (io.crigate.api.nri.v1alpha1.Event.CREATE_CONTAINER_VALUE - 1))
          | (1 << (io.crigate.api.nri.v1alpha1.Event.REMOVE_CONTAINER_VALUE - 1));
      List<String> driven = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        driven.add(out.readLine());
      }
      assertThat(driven).containsExactly(
          "registered 42-crigate nri=v0.12.2",
          "events " + mask,
          "sync-part more=true updates=0",
          "sync-done updates=0",
          "env FROM_JAVA=web/app",
          "cpu.quota 25000",
          "update-pod-sandbox answered");
      assertThat(engine.synced).containsExactly("pod-0", "ctr-0");

      // unsolicited updates and an eviction, on the wire as containerd's Go code reads them
      List<io.crigate.api.nri.v1alpha1.ContainerUpdate> failed = plugin.updateContainers(
          List.of(shares("ctr-1", 512), shares("ctr-gone", 2)),
          List.of(ContainerEviction.newBuilder().setContainerId("ctr-0").setReason("memory pressure").build()));
      assertThat(failed).as("the Go runtime answers updates of unknown containers as failed")
          .containsExactly(shares("ctr-gone", 2));
      assertThat(go.waitFor(2, TimeUnit.MINUTES)).as("Go runtime finished").isTrue();
      List<String> rest = out.lines().toList();
      assertThat(go.exitValue()).as(String.join("\n", rest)).isZero();
      assertThat(rest).containsExactly("update ctr-1 shares=512", "update ctr-gone shares=2",
          "evict ctr-0 reason=memory pressure");
    } finally {
      go.destroy();
    }
  }

  private static io.crigate.api.nri.v1alpha1.ContainerUpdate shares(String id, long shares) {
    return io.crigate.api.nri.v1alpha1.ContainerUpdate.newBuilder().setContainerId(id)
        .setLinux(LinuxContainerUpdate.newBuilder().setResources(io.crigate.api.nri.v1alpha1.LinuxResources.newBuilder()
            .setCpu(LinuxCPU.newBuilder().setShares(OptionalUInt64.newBuilder().setValue(shares))))).build();
  }
}
