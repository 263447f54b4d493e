package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.backend.slurm.SlurmBackendFactory;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.InitContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The slurm backend against the real Slurm in one run: (1) submitting N containers through the
 * backend (CreateContainer + StartContainer, durable records in crigate's SQLite state, its poller
 * running at the default interval) against a plain sbatch loop of the same jobs, alternating rounds; (2) slurmctld RPCs per poll interval with
 * 1, 10 and N tracked jobs, read from sdiag, which counts what slurmctld actually served.
 *
 * <p>Usage: {@code SlurmSubmitBenchmark <workDir> <stateDir> [jobs=200] [rounds=2]}; needs SLURM_CONF.
 */
public final class SlurmSubmitBenchmark {

  private static final Pattern RPC = Pattern.compile("^\\s+(\\w+)\\s+\\(\\s*\\d+\\) count:(\\d+)", Pattern.MULTILINE);
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration WINDOW = Duration.ofSeconds(10);

  private SlurmSubmitBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path workDir = Path.of(args[0]);
    Path stateDir = Path.of(args[1]);
    int jobs = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    Files.createDirectories(workDir);
    try (GatewayState state = GatewayState.open(stateDir)) {
      double sbatchTotal = 0;
      double crigateTotal = 0;
      for (int round = 1; round <= rounds; round++) {
        double sbatch = sbatchLoop(workDir.resolve("baseline-" + round), jobs);
        double crigate = throughBackend(state, workDir, jobs, "round" + round);
        sbatchTotal += sbatch;
        crigateTotal += crigate;
        System.out.printf("round %d: plain sbatch %d jobs in %.2f s (%.1f jobs/s); crigate %.2f s (%.1f jobs/s)%n",
            round, jobs, sbatch, jobs / sbatch, crigate, jobs / crigate);
      }
      System.out.printf("throughput ratio crigate/sbatch = %.2f (all rounds)%n", sbatchTotal / crigateTotal);
      for (int tracked : List.of(1, 10, jobs)) {
        System.out.printf("tracked jobs %d: %s%n", tracked, rpcsPerPoll(state, workDir, tracked));
      }
    }
  }

  private static double sbatchLoop(Path dir, int jobs) throws Exception {
    Files.createDirectories(dir);
    long start = System.nanoTime();
    for (int i = 0; i < jobs; i++) {
      Process sbatch = new ProcessBuilder("sbatch", "--parsable", "--job-name=bench-baseline-" + i,
          "--chdir=" + dir, "--output=/dev/null", "--error=/dev/null", "--export=NONE").start();
      sbatch.getOutputStream().write("#!/bin/bash\nexec true\n".getBytes(StandardCharsets.UTF_8));
      sbatch.getOutputStream().close();
      sbatch.getInputStream().readAllBytes();
      if (sbatch.waitFor() != 0) {
        throw new IllegalStateException("sbatch failed: " + new String(sbatch.getErrorStream().readAllBytes()));
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** {@code pollMillis} 0 keeps the backend's default interval. */
  private static Backend backend(GatewayState state, Path workDir, String name, long pollMillis) {
    ObjectNode settings = new ObjectMapper().createObjectNode().put("workDir", workDir.toString());
    if (pollMillis > 0) {
      settings.put("pollIntervalMillis", pollMillis);
    }
    return new SlurmBackendFactory().create(new InitContext(name, settings, workDir, state.backendStore(name),
        Clock.systemUTC()));
  }

  private static PodSandboxConfig pod(String name) {
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("bench").setUid(name)).build();
  }

  private static ContainerConfig container(int i, List<String> command) {
    return ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("c" + i))
        .setImage(ImageSpec.newBuilder().setImage("none")).addAllCommand(command).build();
  }

  /** Seconds to create and start {@code jobs} containers, one pod, sequentially like the baseline. */
  private static double throughBackend(GatewayState state, Path workDir, int jobs, String name) {
    try (Backend backend = backend(state, workDir, name, 0)) {
      String pod = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod(name)).build())
          .getPodSandboxId();
      long start = System.nanoTime();
      for (int i = 0; i < jobs; i++) {
        String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(pod)
            .setConfig(container(i, List.of("true"))).build()).getContainerId();
        backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
      return seconds;
    }
  }

  /** Runs {@code tracked} long jobs, then counts slurmctld RPCs over a fixed window of polls. */
  private static String rpcsPerPoll(GatewayState state, Path workDir, int tracked) throws Exception {
    String name = "poll" + tracked;
    try (Backend backend = backend(state, workDir, name, POLL.toMillis())) {
      String pod = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod(name)).build())
          .getPodSandboxId();
      for (int i = 0; i < tracked; i++) {
        String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(pod)
            .setConfig(container(i, List.of("sleep", "600"))).build()).getContainerId();
        backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
      }
      Thread.sleep(POLL.multipliedBy(4).toMillis());
      run("sdiag", "--reset");
      Thread.sleep(WINDOW.toMillis());
      Map<String, Long> rpcs = rpcs(run("sdiag"));
      double polls = (double) WINDOW.toMillis() / POLL.toMillis();
      long jobInfo = rpcs.getOrDefault("REQUEST_JOB_INFO", 0L);
      long total = rpcs.entrySet().stream().filter(e -> !e.getKey().equals("REQUEST_STATS_INFO"))
          .mapToLong(Map.Entry::getValue).sum();
      backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
      return "%.2f REQUEST_JOB_INFO and %.2f slurmctld RPCs in all per %d ms poll (%s over %d polls)"
          .formatted(jobInfo / polls, total / polls, POLL.toMillis(), rpcs, (long) polls);
    }
  }

  private static Map<String, Long> rpcs(String sdiag) {
    String byType = sdiag.substring(sdiag.indexOf("by message type"), sdiag.indexOf("by user"));
    Map<String, Long> counts = new java.util.TreeMap<>();
    Matcher m = RPC.matcher(byType);
    while (m.find()) {
      counts.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return counts;
  }

  private static String run(String... argv) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
    }
    return out;
  }
}
