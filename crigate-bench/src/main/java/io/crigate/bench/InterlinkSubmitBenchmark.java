package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.backend.slurm.SlurmBackendFactory;
import io.crigate.core.state.GatewayState;
import io.crigate.interlink.api.ApiRoutes;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.node.ApiClient;
import io.crigate.interlink.node.NodeSettings;
import io.crigate.interlink.node.VirtualNode;
import io.crigate.interlink.plugin.CrigatePlugin;
import io.crigate.interlink.plugin.PluginSettings;
import io.crigate.spi.Backend;
import io.crigate.spi.InitContext;
import io.crigate.transport.EventLoops;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;

/**
 * N pods through the virtual node to the real Slurm against a plain sbatch loop of the same number
 * of jobs, same run, every job held (as SlurmSubmitBenchmark): the time until every pod's job is
 * submitted (the pod carries its job id). The virtual node registers with fabric8's mock API server
 * (CRUD mode) and reaches crigate's plugin through the interLink API layer over HTTP on loopback.
 *
 * <p>Usage: {@code InterlinkSubmitBenchmark <workDir> <stateDir> [pods=200] [rounds=2]}; needs SLURM_CONF.
 */
public final class InterlinkSubmitBenchmark {

  private static final String NODE = "bench-vnode";

  private InterlinkSubmitBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path workDir = Path.of(args[0]);
    Path stateDir = Path.of(args[1]);
    int pods = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    Files.createDirectories(workDir);
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init();
    try (GatewayState state = GatewayState.open(stateDir); KubernetesClient kube = server.createClient()) {
      ObjectNode settings = new ObjectMapper().createObjectNode().put("workDir", workDir.toString());
      Backend backend = new SlurmBackendFactory().create(new InitContext("interlink-bench", settings, workDir,
          state.backendStore("interlink-bench"), Clock.systemUTC(), EventLoops.epoll(1, "bench-io")));
      try (backend;
          CrigatePlugin plugin = new CrigatePlugin(backend, state.backendStore("interlink-plugin"),
              PluginSettings.under(stateDir).withVolumeDir(workDir.resolve("volumes")), Clock.systemUTC());
          RunningServer api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), c -> ApiRoutes.install(c, plugin));
          ApiClient client = new ApiClient(api.address(), null);
          VirtualNode node = new VirtualNode(kube, client, NodeSettings.defaults(NODE)
              .withIntervals(Duration.ofSeconds(1), Duration.ofSeconds(10)), Clock.systemUTC())
              .start(HttpEndpoint.plain("127.0.0.1:0"))) {
        round(kube, workDir, 20, 0); // warm-up, not counted: class loading and JIT of a fresh JVM
        double sbatchTotal = 0;
        double nodeTotal = 0;
        for (int round = 1; round <= rounds; round++) {
          double[] seconds = round(kube, workDir, pods, round);
          sbatchTotal += seconds[0];
          nodeTotal += seconds[1];
          System.out.printf("round %d: plain sbatch %d jobs in %.2f s (%.1f/s); virtual node %d pods submitted in %.2f s "
              + "(%.1f/s); ratio %.2f%n", round, pods, seconds[0], pods / seconds[0], pods, seconds[1], pods / seconds[1],
              seconds[0] / seconds[1]);
        }
        System.out.printf("throughput ratio virtual-node/sbatch = %.2f (all rounds)%n", sbatchTotal / nodeTotal);
      }
    } finally {
      server.destroy();
    }
  }

  /** One side after the other, alternating which goes first; returns {sbatch seconds, virtual node seconds}. */
  private static double[] round(KubernetesClient kube, Path workDir, int pods, int round) throws Exception {
    double sbatch = 0;
    double node = 0;
    for (boolean sbatchTurn : round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
      if (sbatchTurn) {
        Path dir = workDir.resolve("interlink-baseline-" + round);
        Files.createDirectories(dir);
        long nanos = 0;
        for (int i = 0; i < pods; i++) {
          nanos += SlurmSubmitBenchmark.sbatch(dir, 200 + round, i);
        }
        SlurmSubmitBenchmark.cancelBaselineJobs();
        sbatch = nanos / 1e9;
      } else {
        node = throughNode(kube, pods, round);
      }
    }
    return new double[] {sbatch, node};
  }

  /** Creates the pods at once, as a Job controller would, and waits until each carries its job id. */
  private static double throughNode(KubernetesClient kube, int pods, int round) throws Exception {
    String namespace = "bench-" + round;
    long start = System.nanoTime();
    for (int i = 0; i < pods; i++) {
      kube.pods().inNamespace(namespace).resource(pod(namespace, "p" + i)).create();
    }
    while (submitted(kube.pods().inNamespace(namespace).list().getItems()) < pods) {
      Thread.sleep(20);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    kube.pods().inNamespace(namespace).delete();
    while (!kube.pods().inNamespace(namespace).list().getItems().isEmpty()) {
      Thread.sleep(100);
    }
    return seconds;
  }

  private static long submitted(List<Pod> pods) {
    return pods.stream().filter(p -> p.getMetadata().getAnnotations() != null
        && p.getMetadata().getAnnotations().containsKey("interlink.crigate.io/job-id")).count();
  }

  private static Pod pod(String namespace, String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid(UUID.randomUUID().toString())
        .addToAnnotations("slurm-job.vk.io/flags", "--begin=now+1hour").endMetadata()
        .withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withImage("none")
        .withCommand("true").endContainer().endSpec().build();
  }
}
