package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Slurm through its command-line tools, run by a {@link CommandRunner} here or over SSH. */
final class CliSlurmClient implements SlurmClient {

  private static final Pattern CONTROLLER_DOWN = Pattern.compile(
      "Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes were transmitted"
          + "|Communication connection failure|Unable to establish|not responding", Pattern.CASE_INSENSITIVE);
  private static final Pattern ALREADY_DONE = Pattern.compile("already completing or completed|Invalid job id");
  /** "Field:|" prints each value unpadded and untruncated, followed by '|'. */
  private static final String SQUEUE_FORMAT =
      "JobID:|,Name:|,State:|,Reason:|,exit_code:|,StartTime:|,EndTime:|";

  private final CommandRunner runner;
  private final ZoneId clusterZone;

  CliSlurmClient(CommandRunner runner, ZoneId clusterZone) {
    this.runner = runner;
    this.clusterZone = clusterZone;
  }

  @Override
  public long submit(JobSpec job) {
    List<String> argv = new ArrayList<>();
    if (!job.submitEnv().isEmpty()) {
      argv.add("env");
      job.submitEnv().forEach((name, value) -> argv.add(name + "=" + value));
    }
    argv.add("sbatch");
    argv.addAll(job.options().argv());
    // crigate's own options last: if one of the pod's ever meant the same, sbatch keeps the last
    argv.addAll(List.of("--parsable", "--job-name=" + job.name(), "--comment=" + job.comment(),
        "--chdir=" + job.workDir(), "--output=" + job.stdoutPath(), "--error=" + job.stderrPath(), "--export=NONE"));
    CommandResult result = runner.run(argv, job.script().getBytes(StandardCharsets.UTF_8));
    if (!result.ok()) {
      if (CONTROLLER_DOWN.matcher(result.err()).find()) {
        throw unavailable("sbatch", result);
      }
      throw new CrigateException.InvalidArgument("sbatch rejected job %s: %s".formatted(job.name(), result.err()));
    }
    String out = result.out().strip();
    int semicolon = out.indexOf(';');
    try {
      return Long.parseLong(semicolon < 0 ? out : out.substring(0, semicolon));
    } catch (NumberFormatException e) {
      throw new CrigateException.Unavailable("sbatch printed no job id for %s: %s".formatted(job.name(), out));
    }
  }

  @Override
  public List<JobState> queue(Set<Long> jobIds) {
    CommandResult result = checked("squeue", runner.run(
        List.of("squeue", "--me", "--noheader", "--states=all", "--Format=" + SQUEUE_FORMAT), new byte[0]));
    List<JobState> jobs = new ArrayList<>();
    for (String line : result.out().split("\n")) {
      int bar = line.indexOf('|');
      long id = bar <= 0 ? -1 : jobId(line.substring(0, bar));
      if (!jobIds.contains(id)) {
        continue;
      }
      String[] f = line.split("\\|", -1);
      if (f.length != 8 || !f[1].startsWith(NAME_PREFIX)) {
        continue;
      }
      JobState job = new JobState(id, f[1], f[2], f[3], Optional.empty(),
          SlurmTimes.parse(f[5], clusterZone), SlurmTimes.parse(f[6], clusterZone));
      if (job.terminal() && f[4].matches("\\d+")) {
        // squeue prints the raw wait status, and prints it for ended jobs only
        job = job.withExit(JobState.Exit.ofWaitStatus(Integer.parseInt(f[4])));
      }
      jobs.add(job);
    }
    return jobs;
  }

  /** squeue's job id column, or -1 for anything else (an array task such as 12_3 is never ours). */
  private static long jobId(String text) {
    try {
      return Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public Map<Long, JobState> finals(Collection<Long> jobIds) {
    return jobIds.isEmpty() ? Map.of() : fromAccounting(new LinkedHashSet<>(jobIds));
  }

  /** Jobs slurmctld has already forgotten; accounting keeps them. Disabled accounting finds nothing. */
  private Map<Long, JobState> fromAccounting(Set<Long> jobIds) {
    String ids = jobIds.stream().map(String::valueOf).collect(Collectors.joining(","));
    CommandResult result = runner.run(List.of("sacct", "--allocations", "--noheader", "--parsable2", "--jobs=" + ids,
        "--format=JobIDRaw,JobName,State,ExitCode,Start,End"), new byte[0]);
    Map<Long, JobState> found = new HashMap<>();
    if (!result.ok()) {
      return found;
    }
    for (String line : result.out().split("\n")) {
      String[] f = line.split("\\|", -1);
      if (f.length != 6 || !f[0].matches("\\d+")) {
        continue;
      }
      String[] exit = f[3].split(":");
      JobState state = new JobState(Long.parseLong(f[0]), f[1], f[2].split(" ")[0], "None",
          Optional.of(new JobState.Exit(Integer.parseInt(exit[0]), exit.length > 1 ? Integer.parseInt(exit[1]) : 0)),
          SlurmTimes.parse(f[4], clusterZone), SlurmTimes.parse(f[5], clusterZone));
      if (state.settled()) {
        found.put(state.jobId(), state);
      }
    }
    return found;
  }

  @Override
  public Map<String, Long> findByNames(Collection<String> names) {
    Map<String, Long> found = new HashMap<>();
    if (names.isEmpty()) {
      return found;
    }
    String list = String.join(",", names);
    CommandResult queued = checked("squeue", runner.run(List.of("squeue", "--me", "--noheader", "--states=all",
        "--name=" + list, "--Format=JobID:|,Name:|"), new byte[0]));
    collect(queued.out(), found);
    if (found.size() < names.size()) {
      CommandResult accounted = runner.run(List.of("sacct", "--allocations", "--noheader", "--parsable2",
          "--name=" + list, "--starttime=now-7days", "--format=JobIDRaw,JobName"), new byte[0]);
      if (accounted.ok()) {
        collect(accounted.out(), found);
      }
    }
    return found;
  }

  private static void collect(String output, Map<String, Long> found) {
    for (String line : output.split("\n")) {
      String[] f = line.split("\\|", -1);
      if (f.length >= 2 && f[0].strip().matches("\\d+")) {
        found.putIfAbsent(f[1].strip(), Long.parseLong(f[0].strip()));
      }
    }
  }

  @Override
  public void cancel(List<Long> jobIds, String signal) {
    List<String> argv = new ArrayList<>(signal.isEmpty()
        ? List.of("scancel")
        : List.of("scancel", "--full", "--signal=" + signal));
    jobIds.forEach(id -> argv.add(Long.toString(id)));
    CommandResult result = runner.run(argv, new byte[0]);
    if (!result.ok() && !ALREADY_DONE.matcher(result.err()).find()) {
      throw unavailable("scancel", result);
    }
  }

  @Override
  public CommandResult exec(long jobId, List<String> argv) {
    List<String> srun = new ArrayList<>(List.of("srun", "--overlap", "--jobid=" + jobId, "--ntasks=1", "--quiet", "--"));
    srun.addAll(argv);
    return runner.run(srun, new byte[0]);
  }

  @Override
  public Optional<CommandResult> runOnCluster(List<String> argv) {
    return Optional.of(runner.run(argv, new byte[0]));
  }

  @Override
  public Optional<Interactive.Launcher> interactive() {
    return Optional.of(runner);
  }

  private static CommandResult checked(String command, CommandResult result) {
    if (!result.ok()) {
      throw unavailable(command, result);
    }
    return result;
  }

  private static CrigateException.Unavailable unavailable(String command, CommandResult result) {
    return new CrigateException.Unavailable("slurm: %s failed (exit %d): %s".formatted(command, result.exitCode(), result.err()));
  }

  @Override
  public void close() {
    runner.close();
  }
}
