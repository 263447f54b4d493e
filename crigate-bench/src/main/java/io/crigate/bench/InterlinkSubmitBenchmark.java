package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
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
import io.crigate.testsupport.NodeSelectorCrudDispatcher;
import io.crigate.transport.EventLoops;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * N pods through the virtual node to the real Slurm against plain sbatch loops of the same number
 * of jobs, same run, every job held (as SlurmSubmitBenchmark): the time until every pod's job is
 * submitted (the pod carries its job id). The virtual node registers with fabric8's mock API server
 * (CRUD mode) and reaches crigate's plugin through the interLink API layer over HTTP on loopback.
 * Each round times a serial sbatch loop, sbatch from W threads, the node with one pod worker (how
 * it was before pod workers) and with W; the order rotates between rounds. The CPU this JVM spends
 * meanwhile is printed too: it holds the mock API server, the API layer, the plugin and the backend.
 *
 * <p>Usage: {@code InterlinkSubmitBenchmark <workDir> <stateDir> [pods=200] [rounds=2] [workers=8]}; needs SLURM_CONF.
 */
public final class InterlinkSubmitBenchmark {

  private static final String NODE = "bench-vnode";
  /** Held here: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
  private static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private InterlinkSubmitBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path workDir = Path.of(args[0]);
    Path stateDir = Path.of(args[1]);
    int pods = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    int workers = args.length > 4 ? Integer.parseInt(args[4]) : NodeSettings.DEFAULT_POD_WORKERS;
    Files.createDirectories(workDir);
    // the mock server logs every request at INFO: that is the harness's cost, not the node's
    MOCK_SERVER_LOG.setLevel(Level.WARNING);
    KubernetesMockServer server = new NodeSelectorCrudDispatcher().start();
    try (GatewayState state = GatewayState.open(stateDir); KubernetesClient kube = server.createClient()) {
      ObjectNode settings = new ObjectMapper().createObjectNode().put("workDir", workDir.toString());
      Backend backend = new SlurmBackendFactory().create(new InitContext("interlink-bench", settings, workDir,
          state.backendStore("interlink-bench"), Clock.systemUTC(), EventLoops.epoll(1, "bench-io")));
      try (backend;
          CrigatePlugin plugin = new CrigatePlugin(backend, state.backendStore("interlink-plugin"),
              PluginSettings.under(stateDir).withVolumeDir(workDir.resolve("volumes")), Clock.systemUTC());
          RunningServer api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), c -> ApiRoutes.install(c, plugin));
          ApiClient client = new ApiClient(api.address(), null);
          ExecutorService sbatchPool = Executors.newFixedThreadPool(workers)) {
        Sides sides = new Sides(kube, backend, client, workDir, sbatchPool, pods, workers);
        sides.node(0, 20, workers); // warm-up, not counted: class loading and JIT of a fresh JVM
        double[] total = new double[4];
        for (int round = 1; round <= rounds; round++) {
          double[] seconds = new double[4];
          for (int turn = 0; turn < 4; turn++) {
            int side = (turn + round - 1) % 4;
            double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            Timed timed = sides.time(side, round);
            seconds[side] = timed.seconds();
            System.out.printf("round %d: %-28s %d in %6.2f s (%5.1f/s), this JVM's CPU %.1f ms each, "
                + "load average at start %.1f%n", round, Sides.NAMES[side].formatted(workers), pods, timed.seconds(),
                pods / timed.seconds(), timed.cpuNanos() / 1e6 / pods, load);
            total[side] += seconds[side];
          }
        }
        System.out.printf("all rounds, throughput against the serial sbatch loop: sbatch x%d %.2f, node 1 worker %.2f, "
            + "node %d workers %.2f; %d workers against 1: %.2fx%n", workers, total[0] / total[1], total[0] / total[2],
            workers, total[0] / total[3], workers, total[2] / total[3]);
      }
    } finally {
      server.destroy();
    }
  }

  /** Wall time until every job was submitted, and the CPU time this JVM spent meanwhile. */
  private record Timed(double seconds, long cpuNanos) {}

  /** The four things timed, each of {@code pods} held jobs. */
  private record Sides(KubernetesClient kube, Backend backend, ApiClient api, Path workDir, ExecutorService sbatchPool,
      int pods, int workers) {

    static final String[] NAMES = {"sbatch, serial loop", "sbatch, %d threads", "virtual node, 1 pod worker",
        "virtual node, %d pod workers"};

    Timed time(int side, int round) throws Exception {
      return switch (side) {
        case 0 -> sbatch(round, 1);
        case 1 -> sbatch(round, workers);
        case 2 -> node(round, pods, 1);
        default -> node(round, pods, workers);
      };
    }

    private Timed sbatch(int round, int threads) throws Exception {
      Path dir = Files.createDirectories(workDir.resolve("interlink-baseline-" + round + "-" + threads));
      int tag = 200 + round * 10 + threads;
      long cpu = SlurmSubmitBenchmark.processCpuNanos();
      double seconds;
      if (threads == 1) {
        long start = System.nanoTime();
        for (int i = 0; i < pods; i++) {
          SlurmSubmitBenchmark.sbatch(dir, tag, i);
        }
        seconds = (System.nanoTime() - start) / 1e9;
      } else {
        seconds = SlurmSubmitBenchmark.timed(sbatchPool, pods, i -> SlurmSubmitBenchmark.sbatch(dir, tag, i));
      }
      cpu = SlurmSubmitBenchmark.processCpuNanos() - cpu;
      SlurmSubmitBenchmark.cancelBaselineJobs();
      return new Timed(seconds, cpu);
    }

    /**
     * Creates the pods at once, as a Job controller would, and waits until each carries its job id;
     * then deletes them and waits until the plugin has cancelled every job, so the next side starts clean.
     */
    Timed node(int round, int count, int podWorkers) throws Exception {
      String namespace = "bench-" + round + "-" + podWorkers;
      NodeSettings settings = NodeSettings.defaults(NODE).withIntervals(Duration.ofSeconds(1), Duration.ofSeconds(10))
          .withPodWorkers(podWorkers);
      try (VirtualNode node = new VirtualNode(kube, api, settings, Clock.systemUTC()).start(HttpEndpoint.plain("127.0.0.1:0"));
          SharedIndexInformer<Pod> seen = kube.pods().inNamespace(namespace).inform()) {
        long cpu = SlurmSubmitBenchmark.processCpuNanos();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
          kube.pods().inNamespace(namespace).resource(pod(namespace, "p" + i)).create();
        }
        while (seen.getStore().list().stream().filter(InterlinkSubmitBenchmark::submitted).count() < count) {
          Thread.sleep(20);
        }
        Timed timed = new Timed((System.nanoTime() - start) / 1e9, SlurmSubmitBenchmark.processCpuNanos() - cpu);
        kube.pods().inNamespace(namespace).delete();
        while (backend.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsCount() > 0) {
          Thread.sleep(100);
        }
        return timed;
      }
    }
  }

  private static boolean submitted(Pod pod) {
    return pod.getMetadata().getAnnotations() != null
        && pod.getMetadata().getAnnotations().containsKey("interlink.crigate.io/job-id");
  }

  private static Pod pod(String namespace, String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid(UUID.randomUUID().toString())
        .addToAnnotations("slurm-job.vk.io/flags", "--begin=now+1hour").endMetadata()
        .withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withImage("none")
        .withCommand("true").endContainer().endSpec().build();
  }
}
