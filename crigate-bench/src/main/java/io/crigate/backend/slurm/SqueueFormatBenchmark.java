package io.crigate.backend.slurm;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import com.sun.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One poll of the slurm backend's job states in the two output formats Slurm 22.05 offers, same
 * run, interleaved round by round: the positional {@code squeue --Format=...:|} that
 * {@link CliSlurmClient#queue} runs and splits, against {@code squeue --json} read with Jackson
 * into the same {@link JobState}s. Each side is timed end to end (the command, its output through
 * the pipe, the parse), in wall time and in the JVM's CPU time (crigate's share of the cost; both sides spawn squeue
 * through the backend's {@link LocalCommandRunner}).
 *
 * <p>In the backend's package, though built in crigate-bench, so it drives the real client without
 * widening what the backend module exports; the JSON reader lives only here, as the backend keeps
 * the positional format (docs/slurm.md says why).
 *
 * <p>Usage: {@code SqueueFormatBenchmark [trackedJobs=200] [rounds=60]}; needs SLURM_CONF and sbatch.
 * Submits the tracked jobs held ({@code --begin=now+1hour}) under the name prefix crigate polls,
 * and cancels them at the end.
 */
public final class SqueueFormatBenchmark {

  private static final int WARMUP_ROUNDS = 5;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** The fields of {@code squeue --json} (openapi v0.0.38) a poll needs; the other hundred are skipped. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record SqueueJob(@JsonProperty("job_id") long jobId, @JsonProperty("name") String name,
      @JsonProperty("job_state") String state, @JsonProperty("state_reason") String reason,
      @JsonProperty("exit_code") int exitCode, @JsonProperty("start_time") long startTime,
      @JsonProperty("end_time") long endTime) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  record SqueueAnswer(@JsonProperty("jobs") List<SqueueJob> jobs) {}

  private SqueueFormatBenchmark() {}

  public static void main(String[] args) throws Exception {
    int tracked = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    String prefix = SlurmClient.NAME_PREFIX + "fmt-bench-" + ProcessHandle.current().pid() + "-";
    Set<Long> ids = submitHeld(prefix, tracked);
    OperatingSystemMXBean cpu = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    LocalCommandRunner runner = new LocalCommandRunner();
    try (CliSlurmClient positional = new CliSlurmClient(runner, ZoneId.systemDefault())) {
      long[] positionalWall = new long[rounds];
      long[] jsonWall = new long[rounds];
      long[] jsonCpu = new long[rounds];
      long[] positionalCpu = new long[rounds];
      for (int round = -WARMUP_ROUNDS; round < rounds; round++) {
        boolean positionalFirst = round % 2 == 0;
        long[] p = new long[2];
        long[] j = new long[2];
        for (int side = 0; side < 2; side++) {
          if (side == 0 == positionalFirst) {
            p = timePositional(positional, ids, cpu);
          } else {
            j = timeJson(runner, ids, cpu);
          }
        }
        if (round >= 0) {
          positionalWall[round] = p[0];
          positionalCpu[round] = p[1];
          jsonWall[round] = j[0];
          jsonCpu[round] = j[1];
        }
      }
      int positionalBytes = run(List.of("squeue", "--me", "--noheader", "--states=all",
          "--Format=JobID:|,Name:|,State:|,Reason:|,exit_code:|,StartTime:|,EndTime:|")).length;
      int jsonBytes = run(List.of("squeue", "--json")).length;
      System.out.printf("tracked jobs %d, jobs in slurmctld %d, rounds %d (interleaved, after %d warm-up)%n",
          tracked, jobsInController(), rounds, WARMUP_ROUNDS);
      System.out.printf("positional squeue --Format: poll median %.2f ms (p90 %.2f), crigate CPU mean %.2f ms, output %d bytes%n",
          median(positionalWall) / 1e6, p90(positionalWall) / 1e6, mean(positionalCpu) / 1e6, positionalBytes);
      System.out.printf("squeue --json + Jackson:    poll median %.2f ms (p90 %.2f), crigate CPU mean %.2f ms, output %d bytes%n",
          median(jsonWall) / 1e6, p90(jsonWall) / 1e6, mean(jsonCpu) / 1e6, jsonBytes);
      System.out.printf("ratio json/positional: poll median %.2f, crigate CPU %.2f%n",
          median(jsonWall) / median(positionalWall), mean(jsonCpu) / mean(positionalCpu));
    } finally {
      run(List.of("scancel", "--name=" + String.join(",", ids.stream().map(id -> prefix + id).toList())));
      run(List.of("bash", "-c", "squeue --noheader --format=%i,%j | grep ," + prefix + " | cut -d, -f1 | xargs -r scancel"));
    }
  }

  /** The backend's own poll, {@link CliSlurmClient#queue}; CPU is the JVM's for the whole call (spawn, read, parse). */
  private static long[] timePositional(CliSlurmClient client, Set<Long> ids, OperatingSystemMXBean cpu) {
    long start = System.nanoTime();
    long cpuStart = cpu.getProcessCpuTime();
    List<JobState> jobs = client.queue(ids);
    long cpuUsed = cpu.getProcessCpuTime() - cpuStart;
    long wall = System.nanoTime() - start;
    check(jobs, ids);
    return new long[] {wall, cpuUsed};
  }

  /** squeue --json ignores --me and every filter in 22.05: all jobs come back, with about 110 fields each. */
  private static long[] timeJson(LocalCommandRunner runner, Set<Long> ids, OperatingSystemMXBean cpu) throws Exception {
    long start = System.nanoTime();
    long cpuStart = cpu.getProcessCpuTime();
    byte[] out = runner.run(List.of("squeue", "--json"), new byte[0]).stdout();
    List<JobState> jobs = new ArrayList<>();
    for (SqueueJob job : JSON.readValue(out, SqueueAnswer.class).jobs()) {
      if (ids.contains(job.jobId()) && job.name().startsWith(SlurmClient.NAME_PREFIX)) {
        JobState state = new JobState(job.jobId(), job.name(), job.state(), job.reason(), Optional.empty(),
            epoch(job.startTime()), epoch(job.endTime()));
        jobs.add(state.terminal() ? state.withExit(JobState.Exit.ofWaitStatus(job.exitCode())) : state);
      }
    }
    long cpuUsed = cpu.getProcessCpuTime() - cpuStart;
    long wall = System.nanoTime() - start;
    check(jobs, ids);
    return new long[] {wall, cpuUsed};
  }

  private static Optional<Instant> epoch(long seconds) {
    return seconds <= 0 ? Optional.empty() : Optional.of(Instant.ofEpochSecond(seconds));
  }

  /** Both sides must have seen every tracked job, or the comparison compares nothing. */
  private static void check(List<JobState> jobs, Set<Long> ids) {
    if (jobs.size() != ids.size()) {
      throw new IllegalStateException("a poll saw %d of %d tracked jobs".formatted(jobs.size(), ids.size()));
    }
  }

  private static Set<Long> submitHeld(String prefix, int count) {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < count; i++) {
      String out = new String(run(List.of("sbatch", "--parsable", "--begin=now+1hour", "--job-name=" + prefix + i,
          "--output=/dev/null", "--wrap=true")), StandardCharsets.UTF_8).strip();
      ids.add(Long.parseLong(out.split(";")[0]));
    }
    return ids;
  }

  private static long jobsInController() {
    return new String(run(List.of("squeue", "--noheader", "--states=all", "--format=%i")), StandardCharsets.UTF_8)
        .lines().filter(line -> !line.isBlank()).count();
  }

  private static byte[] run(List<String> argv) {
    try {
      Process process = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = process.getInputStream().readAllBytes();
      if (process.waitFor() != 0) {
        throw new IllegalStateException(argv.getFirst() + " failed");
      }
      return out;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The JVM's CPU clock ticks in jiffies (10 ms): a mean over the rounds, not a median of ticks. */
  private static double mean(long[] values) {
    return Arrays.stream(values).average().orElse(0);
  }

  private static double p90(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)];
  }
}
