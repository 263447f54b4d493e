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
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The slurm backend against the real Slurm in one run: (1) submitting N containers through the
 * backend (CreateContainer + StartContainer, durable records in crigate's SQLite state, its poller
 * running at the default interval) against plain sbatch of the same jobs, interleaved pair by pair,
 * every job of both sides submitted held so that none runs while the other side is timed; (2)
 * slurmctld RPCs per poll interval with 1, 10 and N tracked jobs, read from sdiag, which counts
 * what slurmctld actually served.
 *
 * <p>Usage: {@code SlurmSubmitBenchmark <workDir> <stateDir> [jobs=200] [rounds=2]}; needs SLURM_CONF.
 */
public final class SlurmSubmitBenchmark {

  private static final Pattern RPC = Pattern.compile("^\\s+(\\w+)\\s+\\(\\s*\\d+\\) count:(\\d+)", Pattern.MULTILINE);
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final int WARMUP_JOBS = 300;
  private static final int WORKERS = 4;

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
      // Warm-up, not counted: the first containers through a fresh JVM pay for class loading and
      // JIT compilation of the backend, which a long-running crigate has long paid. A JFR profile
      // of a 50-pair warm-up still showed 12 s of JIT compile time across the run.
      interleaved(state, workDir, WARMUP_JOBS, 0);
      for (int round = 1; round <= rounds; round++) {
        double[] seconds = interleaved(state, workDir, jobs, round);
        sbatchTotal += seconds[0];
        crigateTotal += seconds[1];
        System.out.printf("round %d: plain sbatch %d jobs in %.2f s (%.1f jobs/s); crigate %.2f s (%.1f jobs/s); ratio %.2f%n",
            round, jobs, seconds[0], jobs / seconds[0], seconds[1], jobs / seconds[1], seconds[0] / seconds[1]);
      }
      System.out.printf("throughput ratio crigate/sbatch = %.2f (all rounds)%n", sbatchTotal / crigateTotal);
      concurrent(state, workDir, jobs, rounds);
      for (int tracked : List.of(1, 10, jobs)) {
        System.out.printf("tracked jobs %d: %s%n", tracked, rpcsPerPoll(state, workDir, tracked));
      }
    }
  }

  /**
   * Submits {@code jobs} plain sbatch jobs and {@code jobs} containers through the backend one
   * pair at a time, alternating which of the two goes first, and returns the summed seconds of
   * each side. Pairing matters: slurmctld slows down as its job table fills (every submission
   * stays in it for MinJobAge), so a block of one side followed by a block of the other would
   * charge the second block for the first one's jobs.
   */
  private static double[] interleaved(GatewayState state, Path workDir, int jobs, int round) throws Exception {
    Path baselineDir = workDir.resolve("baseline-" + round);
    Files.createDirectories(baselineDir);
    long sbatchNanos = 0;
    long crigateNanos = 0;
    long createNanos = 0;
    try (Backend backend = backend(state, workDir, "round" + round, 0)) {
      String pod = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(heldPod("round" + round)).build())
          .getPodSandboxId();
      for (int i = 0; i < jobs; i++) {
        boolean sbatchFirst = i % 2 == 0;
        if (sbatchFirst) {
          sbatchNanos += sbatch(baselineDir, round, i);
        }
        long start = System.nanoTime();
        String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(pod)
            .setConfig(container(i, List.of("true"))).build()).getContainerId();
        long created = System.nanoTime();
        backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
        crigateNanos += System.nanoTime() - start;
        createNanos += created - start;
        if (!sbatchFirst) {
          sbatchNanos += sbatch(baselineDir, round, i);
        }
      }
      backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
    }
    cancelBaselineJobs();
    System.out.printf("  mean per container: plain sbatch %.2f ms; crigate CreateContainer %.2f ms + StartContainer %.2f ms%n",
        sbatchNanos / 1e6 / jobs, createNanos / 1e6 / jobs, (crigateNanos - createNanos) / 1e6 / jobs);
    return new double[] {sbatchNanos / 1e9, crigateNanos / 1e9};
  }

  /**
   * The kubelet starts the containers of different pods in parallel (one worker per pod), so the
   * same comparison with {@link #WORKERS} submitters on each side: a plain sbatch loop spread over
   * the workers against one container per pod through the backend. Blocks alternate which side
   * goes first, so neither is always charged for the other's jobs in slurmctld's table.
   */
  private static void concurrent(GatewayState state, Path workDir, int jobs, int rounds) throws Exception {
    double sbatchTotal = 0;
    double crigateTotal = 0;
    try (ExecutorService pool = Executors.newFixedThreadPool(WORKERS)) {
      for (int round = 1; round <= rounds; round++) {
        double sbatch = 0;
        double crigate = 0;
        for (boolean sbatchTurn : round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
          if (sbatchTurn) {
            Path dir = workDir.resolve("parallel-baseline-" + round);
            Files.createDirectories(dir);
            int r = round;
            long cpuStart = processCpuNanos();
            sbatch = timed(pool, jobs, i -> sbatch(dir, 100 + r, i));
            cancelBaselineJobs();
            System.out.printf("  plain sbatch: JVM CPU per job %.2f ms (spawning sbatch and reading its output)%n",
                (processCpuNanos() - cpuStart) / 1e6 / jobs);
          } else {
            long cpuBefore = processCpuNanos();
            try (Backend backend = backend(state, workDir, "parallel" + round, 0)) {
              String[] pods = new String[jobs];
              for (int i = 0; i < jobs; i++) {
                pods[i] = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
                    .setConfig(heldPod("parallel" + round + "-" + i)).build()).getPodSandboxId();
              }
              long cpuStart = processCpuNanos();
              crigate = timed(pool, jobs, i -> {
                String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(pods[i])
                    .setConfig(container(i, List.of("true"))).build()).getContainerId();
                backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
                return 0L;
              });
              System.out.printf("  crigate JVM CPU per container %.2f ms (pods created beforehand: %.2f ms each)%n",
                  (processCpuNanos() - cpuStart) / 1e6 / jobs, (cpuStart - cpuBefore) / 1e6 / jobs);
              for (String pod : pods) {
                backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
              }
            }
          }
        }
        sbatchTotal += sbatch;
        crigateTotal += crigate;
        System.out.printf("%d workers, round %d: plain sbatch %d jobs in %.2f s (%.1f jobs/s); crigate %.2f s (%.1f jobs/s); ratio %.2f%n",
            WORKERS, round, jobs, sbatch, jobs / sbatch, crigate, jobs / crigate, sbatch / crigate);
      }
    }
    System.out.printf("%d workers: throughput ratio crigate/sbatch = %.2f (all rounds)%n", WORKERS, sbatchTotal / crigateTotal);
  }

  interface Submission {
    long run(int i) throws Exception;
  }

  /** Seconds from the first submission to the last one's return, spread over the pool. */
  static double timed(ExecutorService pool, int jobs, Submission submission) throws Exception {
    long start = System.nanoTime();
    List<Future<Long>> done = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      int index = i;
      done.add(pool.submit(() -> submission.run(index)));
    }
    for (Future<Long> future : done) {
      future.get();
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** CPU time of this JVM, all threads: what crigate's own work costs the node's cores. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * Cancels the plain jobs still queued once a round is timed, as RemovePodSandbox does for
   * crigate's: a single node runs a few hundred {@code true} jobs more slowly than they are
   * submitted, and a backlog would load the machine during the next round.
   */
  static void cancelBaselineJobs() throws Exception {
    List<String> argv = new ArrayList<>(List.of("scancel"));
    run("squeue", "--me", "--noheader", "--format=%i %j").lines().filter(line -> line.contains(" bench-baseline-"))
        .map(line -> line.split(" ")[0]).forEach(argv::add);
    if (argv.size() > 1) {
      run(argv.toArray(String[]::new));
    }
  }

  /** One plain submission of the same job; returns its nanoseconds. */
  static long sbatch(Path dir, int round, int i) throws Exception {
    long start = System.nanoTime();
    Process sbatch = new ProcessBuilder("sbatch", "--parsable", "--job-name=bench-baseline-" + round + "-" + i,
        "--chdir=" + dir, "--output=/dev/null", "--error=/dev/null", "--export=NONE", "--begin=now+1hour").start();
    sbatch.getOutputStream().write("#!/bin/bash\nexec true\n".getBytes(StandardCharsets.UTF_8));
    sbatch.getOutputStream().close();
    sbatch.getInputStream().readAllBytes();
    if (sbatch.waitFor() != 0) {
      throw new IllegalStateException("sbatch failed: " + new String(sbatch.getErrorStream().readAllBytes()));
    }
    return System.nanoTime() - start;
  }

  /** The slurm backend opens no channels; daemon threads, so the harness exits without closing it. */
  private static final EventLoopGroup IO = EventLoops.epoll(1, "slurm-bench-io");

  /** {@code pollMillis} 0 keeps the backend's default interval. */
  private static Backend backend(GatewayState state, Path workDir, String name, long pollMillis) {
    ObjectNode settings = new ObjectMapper().createObjectNode().put("workDir", workDir.toString());
    if (pollMillis > 0) {
      settings.put("pollInterval", pollMillis + "ms");
    }
    return new SlurmBackendFactory().create(new InitContext(name, settings, workDir, state.backendStore(name),
        Clock.systemUTC(), IO));
  }

  /**
   * A pod whose jobs are submitted to start an hour later, as the plain sbatch side's are: the
   * comparison is of submission, and hundreds of {@code true} jobs started on this single node would
   * load its two cores during whichever side comes next (a 4-submitter round once measured 0.54, the
   * next 1.14). Not {@code --hold}: the sbatch allow-list refuses it for pods.
   */
  private static PodSandboxConfig heldPod(String name) {
    return pod(name).toBuilder().putAnnotations("slurm-job.vk.io/flags", "--begin=now+1hour").build();
  }

  private static PodSandboxConfig pod(String name) {
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("bench").setUid(name)).build();
  }

  private static ContainerConfig container(int i, List<String> command) {
    return ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("c" + i))
        .setImage(ImageSpec.newBuilder().setImage("none")).addAllCommand(command).build();
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
