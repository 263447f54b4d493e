package io.crigate.bench;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.*;
import io.crigate.core.state.GatewayState;
import io.crigate.hooks.HookSettings;
import io.crigate.hooks.HostCgroups;
import io.crigate.hooks.KoordinatorHooks;
import io.crigate.hooks.ListSchedule;
import io.crigate.hooks.StandaloneReconciler;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.cri.CriTranslation;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The two figures issue 14 asks of the runtime hooks, each against a baseline in the same run:
 *
 * <ol>
 *   <li>what the hooks add to a CreateContainer in proxy mode: the work crigate's proxy door does
 *       per call with every built-in hook acting on the pod (CRI to contexts, the chain, the
 *       adjusted request, the durable record of the container), against the same call with no
 *       plugin (the request forwarded as is), alternating in blocks;
 *   <li>the standalone reconcile delay with 200 containers: from each container's start until its
 *       UpdateContainerResources arrives, with the process CPU time over the run. The runtime is an
 *       in-memory CRI runtime ({@link FakeRuntime}), because 200 real containers do not fit this
 *       shared 2-core machine; everything from the reconciler on is the production code. The same
 *       fleet runs twice: listing on a fixed 1 s period (the baseline), then on the schedule that
 *       lists every 250 ms while containers appear.
 * </ol>
 *
 * Usage: {@code java -cp ... io.crigate.bench.HooksBenchmark [iterations] [containers] [seconds]}.
 */
public final class HooksBenchmark {

  private HooksBenchmark() {}

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int containers = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    proxyOverhead(iterations);
    // the same fleet against the old fixed 1 s listing and the schedule that lists faster while containers appear
    standaloneDelay(containers, seconds, ListSchedule.fixed(Duration.ofSeconds(1)));
    standaloneDelay(containers, seconds, new ListSchedule(Duration.ofSeconds(1), Duration.ofMillis(250)));
  }

  static final String BATCH_SPEC = "{\"containers\":{\"app\":{\"requests\":{\"kubernetes.io/batch-cpu\":\"500\","
      + "\"kubernetes.io/batch-memory\":\"128Mi\"},\"limits\":{\"kubernetes.io/batch-cpu\":\"1000\","
      + "\"kubernetes.io/batch-memory\":\"256Mi\"}}}}";

  /** A BE pod that every built-in hook acts on: QoS class, batch spec, scheduler cpuset, GPUs. */
  static PodSandboxConfig pod(String name) {
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("bench").setUid("uid-" + name))
        .putLabels("koordinator.sh/qosClass", "BE")
        .putAnnotations("node.koordinator.sh/extended-resource-spec", BATCH_SPEC)
        .putAnnotations("scheduling.koordinator.sh/resource-status", "{\"cpuset\":\"0-1\"}")
        .putAnnotations("scheduling.koordinator.sh/device-allocated", "{\"gpu\":[{\"minor\":0},{\"minor\":1}]}")
        .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent("/kubepods/besteffort/pod-" + name))
        .build();
  }

  static ContainerConfig container() {
    return ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("app"))
        .setImage(ImageSpec.newBuilder().setImage("registry.example/app:v1"))
        .addCommand("/bin/app").addEnvs(KeyValue.newBuilder().setKey("MODE").setValue(ByteString.copyFromUtf8("batch")))
        .setLinux(LinuxContainerConfig.newBuilder().setResources(LinuxContainerResources.newBuilder()
            .setCpuShares(2).setOomScoreAdj(1000)))
        .build();
  }

  private static void proxyOverhead(int iterations) throws Exception {
    Path dir = Files.createTempDirectory("hooks-bench-");
    try (GatewayState state = GatewayState.open(dir);
        PluginChain hooks = new PluginChain(List.of(new KoordinatorHooks(HookSettings.parse(null).chain())))) {
      DurableStore store = state.backendStore("@bench");
      CreateContainerRequest request = CreateContainerRequest.newBuilder().setPodSandboxId("sandbox-1")
          .setConfig(container()).setSandboxConfig(pod("p")).build();
      Samples none = new Samples();
      Samples with = new Samples();
      int block = 100;
      long sink = 0;
      for (int i = 0; i < iterations / block; i++) {
        boolean measured = i >= iterations / block / 5; // the first fifth warms the JIT up
        for (int j = 0; j < block; j++) {
          long start = System.nanoTime();
          CreateContainerRequest forwarded = request;
          long elapsed = System.nanoTime() - start;
          sink += forwarded.getSerializedSize();
          if (measured) {
            none.add(elapsed);
          }
        }
        for (int j = 0; j < block; j++) {
          long start = System.nanoTime();
          CreateContainerRequest forwarded = throughHooks(hooks, store, request, i * block + j);
          long elapsed = System.nanoTime() - start;
          sink += forwarded.getSerializedSize();
          if (measured) {
            with.add(elapsed);
          }
        }
      }
      System.out.printf(Locale.ROOT, "proxy CreateContainer, crigate's own work per call (n=%d each, sink %d)%n",
          with.count(), sink % 10);
      System.out.printf(Locale.ROOT, "| no plugin | %.1f | %.1f |%n", none.percentileMicros(50), none.percentileMicros(99));
      System.out.printf(Locale.ROOT, "| all built-in hooks | %.1f | %.1f |%n", with.percentileMicros(50), with.percentileMicros(99));
      System.out.printf(Locale.ROOT, "| added | %.1f | %.1f |%n", with.percentileMicros(50) - none.percentileMicros(50),
          with.percentileMicros(99) - none.percentileMicros(99));
    }
  }

  /** What the proxy door does for a CreateContainer when a plugin is configured (ProxyAdjustments). */
  private static CreateContainerRequest throughHooks(PluginChain chain, DurableStore store,
      CreateContainerRequest request, int n) {
    PodContext pod = CriTranslation.pod(request.getPodSandboxId(), request.getSandboxConfig(), "");
    ContainerContext container = CriTranslation.container(pod, "", request.getConfig());
    PluginResult result = chain.createContainer(pod, container);
    CreateContainerRequest adjusted = request.toBuilder()
        .setConfig(CriTranslation.apply(request.getConfig(), result.adjustment())).build();
    store.put("container/" + (n % 1000), adjusted.toBuilder().clearSandboxConfig().build().toByteArray());
    return adjusted;
  }

  private static void standaloneDelay(int containers, int seconds, ListSchedule schedule) throws Exception {
    FakeRuntime runtime = new FakeRuntime(pod("p").toBuilder().clearLinux().build());
    Samples delays = new Samples();
    ConcurrentHashMap<String, Boolean> done = new ConcurrentHashMap<>();
    Path cgroups = Files.createTempDirectory("hooks-bench-cgroup-");
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (PluginChain engine = new PluginChain(List.of(new KoordinatorHooks(HookSettings.parse(null).chain())));
        StandaloneReconciler reconciler = new StandaloneReconciler(runtime, engine,
            HostCgroups.at(cgroups, cgroups), schedule, HookSettings.DEFAULT_RESYNC, Clock.systemUTC(),
            (id, adjustment, sinceStart) -> {
              if (done.putIfAbsent(id, true) == null) {
                delays.add(runtime.sinceStart(id));
              }
            })) {
      reconciler.start();
      long cpuStart = os.getProcessCpuTime();
      long wallStart = System.nanoTime();
      long spacing = Duration.ofSeconds(seconds).toNanos() / containers;
      for (int i = 0; i < containers; i++) {
        runtime.start("c" + i);
        Thread.sleep(Duration.ofNanos(spacing + ThreadLocalRandom.current().nextLong(spacing / 2)));
      }
      while (done.size() < containers && System.nanoTime() - wallStart < Duration.ofSeconds(seconds + 30).toNanos()) {
        Thread.sleep(50);
      }
      double cpu = (os.getProcessCpuTime() - cpuStart) / (double) (System.nanoTime() - wallStart);
      long idleCpuStart = os.getProcessCpuTime();
      long idleStart = System.nanoTime();
      Thread.sleep(Duration.ofSeconds(seconds));
      double idleCpu = (os.getProcessCpuTime() - idleCpuStart) / (double) (System.nanoTime() - idleStart);
      System.out.printf(Locale.ROOT, "standalone reconcile, %d containers started over %d s, %s, resync %s, load average %.2f%n",
          containers, seconds, schedule, HookSettings.DEFAULT_RESYNC, os.getSystemLoadAverage());
      System.out.printf(Locale.ROOT, "| reconciled | %d of %d |%n", delays.count(), containers);
      System.out.printf(Locale.ROOT, "| delay p50 / p99 / max ms | %.0f / %.0f / %.0f |%n", delays.percentileMicros(50) / 1000,
          delays.percentileMicros(99) / 1000, delays.percentileMicros(100) / 1000);
      System.out.printf(Locale.ROOT, "| CPU while containers start | %.1f%% of one core |%n", cpu * 100);
      System.out.printf(Locale.ROOT, "| CPU with %d containers running, nothing new | %.1f%% of one core |%n",
          containers, idleCpu * 100);
    }
  }
}
