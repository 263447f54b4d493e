package io.crigate.bench;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How long {@code crigate serve} takes to serve after a restart with {@code policy.kubernetes}
 * when its API server takes connections and never answers, with the policy ConfigMap of the last
 * run remembered in its state directory and, as the baseline in the same run, with an empty one
 * (every restart before the ConfigMap was remembered). A first start against a mock API server
 * that answers leaves the ConfigMap remembered; then the API server falls silent (a socket that
 * listens and reads nothing, on the same port) and the two kinds of restart alternate.
 *
 * <p>Usage: {@code PolicyRestartBenchmark WORK_DIR CONTAINERD_ENDPOINT [ROUNDS=5]}; run from the
 * repository (it starts {@code bin/crigate}).
 */
public final class PolicyRestartBenchmark {

  private static final String NODE = "bench-node";

  private PolicyRestartBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    String containerd = args[1];
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Path repository = Path.of("").toAbsolutePath();
    Path config = work.resolve("serve.yaml");
    Files.createDirectories(work);
    Files.writeString(config, """
        policy:
          active: none
          kubeletCpuManagerState: %s
          kubernetes: {node: %s}
        """.formatted(work.resolve("no-kubelet-cpu-manager-state"), NODE));

    Path remembering = work.resolve("remembered");
    Duration answered;
    ChainApiServer api = ChainApiServer.start(work.resolve("api"));
    Map<String, String> environment = Map.of("KUBECONFIG", api.kubeconfig().toString());
    InetSocketAddress address = api.address();
    try {
      api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
      api.client().configMaps().inNamespace("kube-system").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("crigate-config.default").endMetadata()
          .withData(Map.of("policy", "active: static\nreservedCpus: \"0\"\n")).build()).create();
      try (CrigateUnderBench first = CrigateUnderBench.start(repository, remembering, containerd, config, environment)) {
        answered = first.startToServing();
      }
    } finally {
      api.close();
    }

    List<Duration> resumed = new ArrayList<>();
    List<Duration> waited = new ArrayList<>();
    try (ServerSocket silent = new ServerSocket(address.getPort(), 64, address.getAddress())) {
      for (int round = 0; round < rounds; round++) {
        resumed.add(startToServing(repository, remembering, containerd, config, environment));
        Path empty = work.resolve("empty-" + round);
        waited.add(startToServing(repository, empty, containerd, config, environment));
      }
    }

    System.out.printf("crigate serve with policy.kubernetes, %d rounds; start to serving (a Version call answered)%n", rounds);
    System.out.printf("%-62s %s%n", "API server answering, first start", format(answered));
    System.out.printf("%-62s median %s  (%s)%n", "API server silent, the last run's ConfigMap remembered",
        format(median(resumed)), list(resumed));
    System.out.printf("%-62s median %s  (%s)%n", "API server silent, nothing remembered (baseline)",
        format(median(waited)), list(waited));
    System.out.printf("policy served with after the silent restarts: remembered %s, nothing remembered %s%n",
        resumedPolicy(remembering), resumedPolicy(work.resolve("empty-0")));
  }

  private static Duration startToServing(Path repository, Path workDir, String containerd, Path config,
      Map<String, String> environment) throws Exception {
    try (CrigateUnderBench crigate = CrigateUnderBench.start(repository, workDir, containerd, config, environment)) {
      return crigate.startToServing();
    }
  }

  /** What the log of the runs in {@code workDir} says the last silent start served with. */
  private static String resumedPolicy(Path workDir) throws Exception {
    String log = Files.readString(workDir.resolve("crigate.log"));
    return log.contains("as applied before the last stop (policy static)") ? "static (the ConfigMap's, resumed)"
        : log.contains("running with the local configuration") ? "none (the file's)" : "unknown: see " + workDir;
  }

  private static Duration median(List<Duration> samples) {
    return samples.stream().sorted().toList().get(samples.size() / 2);
  }

  private static String format(Duration duration) {
    return "%,d ms".formatted(duration.toMillis());
  }

  private static String list(List<Duration> samples) {
    return String.join(", ", samples.stream().map(PolicyRestartBenchmark::format).toList());
  }
}
