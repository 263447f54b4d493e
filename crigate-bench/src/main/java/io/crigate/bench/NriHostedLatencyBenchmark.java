package io.crigate.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerMetadata;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.KeyValue;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.nri.NriHandler;
import io.crigate.nri.NriHostedPlugins;
import io.crigate.nri.NriPlugin;
import io.crigate.nri.NriRuntime;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.cri.CriTranslation;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What one hosted NRI plugin adds to CreateContainer in {@code crigate serve}: the proxy door's
 * whole adjustment step (CRI request to contexts, the chain, the NRI round trip over the muxed unix
 * socket to a plugin in its own JVM, the merge, applying the answer to the request) against the
 * same request with no plugin configured, where the step is skipped. Alternating blocks of 100.
 *
 * <p>Usage: {@code NriHostedLatencyBenchmark [--iterations 20000] [--warmup 5000]}.
 */
public final class NriHostedLatencyBenchmark {

  private static final PodSandboxConfig POD = PodSandboxConfig.newBuilder()
      .setMetadata(PodSandboxMetadata.newBuilder().setName("web").setNamespace("default").setUid("uid-1")).build();
  private static final CreateContainerRequest REQUEST = CreateContainerRequest.newBuilder().setPodSandboxId("pod-1")
      .setConfig(ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("app"))).setSandboxConfig(POD)
      .build();

  private NriHostedLatencyBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--plugin")) {
      runPlugin(Path.of(args[1]));
      return;
    }
    int iterations = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--iterations", "20000"));
    int warmup = Integer.parseInt(TtrpcRoundTripBenchmark.option(args, "--warmup", "5000"));
    Path dir = Files.createTempDirectory("crigate-nri-bench");
    Path socket = dir.resolve("nri.sock");
    NriHostedPlugins hosted = NriHostedPlugins.start(NriRuntime.Settings.defaults(socket), updates -> List.of(),
        (id, by, reason) -> {});
    Process plugin = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        NriHostedLatencyBenchmark.class.getName(), "--plugin", socket.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try (PluginChain chain = new PluginChain(List.of(hosted))) {
      String ready = new BufferedReader(new InputStreamReader(plugin.getInputStream(), UTF_8)).readLine();
      if (!"REGISTERED".equals(ready)) {
        throw new IllegalStateException("plugin did not register: " + ready);
      }
      while (adjust(chain).getConfig().getEnvsCount() == 0) {
        Thread.sleep(50); // registered, not yet configured and synchronized
      }
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      PairedLatency.Result r = PairedLatency.measure("CreateContainer adjustment step", () -> sink(REQUEST),
          List.of(new PairedLatency.Side("plugin", () -> sink(adjust(chain)), os::getProcessCpuTime)), warmup, iterations);
      PairedLatency.Measured withPlugin = r.side("plugin");
      System.out.printf(Locale.ROOT, "CreateContainer, one hosted NRI plugin vs none, %d calls each, %s, %d cores%n%n",
          iterations, System.getProperty("java.vm.name") + " " + Runtime.version(), Runtime.getRuntime().availableProcessors());
      System.out.println("| case | p50 µs | p99 µs |");
      System.out.println("|---|---:|---:|");
      System.out.printf(Locale.ROOT, "| no plugin | %.1f | %.1f |%n", r.direct().percentileMicros(50), r.direct().percentileMicros(99));
      System.out.printf(Locale.ROOT, "| one hosted plugin | %.1f | %.1f |%n", withPlugin.samples().percentileMicros(50),
          withPlugin.samples().percentileMicros(99));
      System.out.printf(Locale.ROOT, "%nadded p50: %.1f µs, added p99: %.1f µs; crigate CPU per call with the plugin: %.1f µs%n",
          r.addedMicros("plugin", 50), r.addedMicros("plugin", 99), withPlugin.cpuNanosPerCall() / 1000);
    } finally {
      plugin.getOutputStream().close();
      plugin.waitFor(10, TimeUnit.SECONDS);
      plugin.destroy();
    }
  }

  /** The proxy door's step, as ProxyAdjustments runs it for a CreateContainer. */
  private static CreateContainerRequest adjust(PluginChain chain) {
    PodContext pod = CriTranslation.pod(REQUEST.getPodSandboxId(), REQUEST.getSandboxConfig(), "");
    ContainerContext container = CriTranslation.container(pod, "", REQUEST.getConfig());
    PluginResult result = chain.createContainer(pod, container);
    return REQUEST.toBuilder().setConfig(CriTranslation.apply(REQUEST.getConfig(), result.adjustment())).build();
  }

  private static volatile Object sinkhole;

  private static void sink(Object o) {
    sinkhole = o;
  }

  /** The plugin's own process: an env var for every container, until stdin closes. */
  private static void runPlugin(Path socket) throws Exception {
    NriHandler handler = new NriHandler() {
      @Override
      public Set<Event> events() {
        return Set.of(Event.CREATE_CONTAINER);
      }

      @Override
      public CreateContainerResponse createContainer(PodSandbox pod, Container container) {
        return CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
            .addEnv(KeyValue.newBuilder().setKey("INJECTED").setValue(pod.getName()))).build();
      }
    };
    try (NriPlugin plugin = new NriPlugin(new NriPlugin.Settings("bench", "10", socket, -1), handler).start()) {
      plugin.registered().get(30, TimeUnit.SECONDS);
      System.out.println("REGISTERED");
      System.out.flush();
      System.in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }
}
