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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Slurm through its command-line tools, run by a {@link CommandRunner} here or over SSH. */
final class CliSlurmClient implements SlurmClient {

  private static final Pattern CONTROLLER_DOWN = Pattern.compile(
      "Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes were transmitted"
          + "|Communication connection failure|Unable to establish|not responding", Pattern.CASE_INSENSITIVE);
  private static final Pattern ALREADY_DONE = Pattern.compile("already completing or completed|Invalid job id");
  private static final Pattern SCONTROL_FIELD = Pattern.compile(
      "(?:^| )(JobId|JobName|JobState|Reason|ExitCode|StartTime|EndTime)=(\\S*)");
  private static final String SQUEUE_FORMAT = "%i|%j|%T|%r|%S|%e";

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
    argv.addAll(List.of("sbatch", "--parsable", "--job-name=" + job.name(), "--comment=" + job.comment(),
        "--chdir=" + job.workDir(), "--output=" + job.stdoutPath(), "--error=" + job.stderrPath(), "--export=NONE"));
    argv.addAll(job.options().argv());
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
  public List<JobState> queue() {
    CommandResult result = checked("squeue", runner.run(
        List.of("squeue", "--me", "--noheader", "--states=all", "--format=" + SQUEUE_FORMAT), new byte[0]));
    List<JobState> jobs = new ArrayList<>();
    for (String line : result.out().split("\n")) {
      String[] f = line.split("\\|", -1);
      if (f.length != 6 || !f[1].startsWith(NAME_PREFIX)) {
        continue;
      }
      jobs.add(new JobState(Long.parseLong(f[0].strip()), f[1], f[2], f[3], null, null,
          SlurmTimes.parse(f[4], clusterZone), SlurmTimes.parse(f[5], clusterZone)));
    }
    return jobs;
  }

  @Override
  public Map<Long, JobState> finals(Collection<Long> jobIds) {
    Map<Long, JobState> found = new HashMap<>();
    if (jobIds.isEmpty()) {
      return found;
    }
    // One call lists every job slurmctld still remembers (MinJobAge), exit codes included.
    CommandResult live = checked("scontrol", runner.run(List.of("scontrol", "--oneliner", "show", "job"), new byte[0]));
    for (String line : live.out().split("\n")) {
      JobState state = parseScontrol(line);
      if (state != null && jobIds.contains(state.jobId()) && state.settled()) {
        found.put(state.jobId(), state);
      }
    }
    Set<Long> missing = new LinkedHashSet<>(jobIds);
    missing.removeAll(found.keySet());
    if (!missing.isEmpty()) {
      found.putAll(fromAccounting(missing));
    }
    return found;
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
          Integer.parseInt(exit[0]), exit.length > 1 ? Integer.parseInt(exit[1]) : 0,
          SlurmTimes.parse(f[4], clusterZone), SlurmTimes.parse(f[5], clusterZone));
      if (state.settled()) {
        found.put(state.jobId(), state);
      }
    }
    return found;
  }

  private JobState parseScontrol(String line) {
    Map<String, String> fields = new HashMap<>();
    Matcher m = SCONTROL_FIELD.matcher(line);
    while (m.find()) {
      fields.putIfAbsent(m.group(1), m.group(2));
    }
    if (!fields.containsKey("JobId") || !fields.containsKey("JobState")) {
      return null;
    }
    String[] exit = fields.getOrDefault("ExitCode", "0:0").split(":");
    return new JobState(Long.parseLong(fields.get("JobId")), fields.getOrDefault("JobName", ""),
        fields.get("JobState"), fields.getOrDefault("Reason", "None"), Integer.parseInt(exit[0]),
        exit.length > 1 ? Integer.parseInt(exit[1]) : 0,
        SlurmTimes.parse(fields.getOrDefault("StartTime", ""), clusterZone),
        SlurmTimes.parse(fields.getOrDefault("EndTime", ""), clusterZone));
  }

  @Override
  public Optional<Long> findByName(String name) {
    CommandResult queued = checked("squeue", runner.run(
        List.of("squeue", "--me", "--noheader", "--states=all", "--name=" + name, "--format=%i"), new byte[0]));
    Optional<Long> live = firstId(queued.out());
    if (live.isPresent()) {
      return live;
    }
    CommandResult accounted = runner.run(List.of("sacct", "--allocations", "--noheader", "--parsable2",
        "--name=" + name, "--starttime=now-7days", "--format=JobIDRaw"), new byte[0]);
    return accounted.ok() ? firstId(accounted.out()) : Optional.empty();
  }

  private static Optional<Long> firstId(String output) {
    return output.lines().map(String::strip).filter(s -> s.matches("\\d+")).map(Long::parseLong).findFirst();
  }

  @Override
  public void cancel(long jobId, String signal) {
    List<String> argv = signal.isEmpty()
        ? List.of("scancel", Long.toString(jobId))
        : List.of("scancel", "--full", "--signal=" + signal, Long.toString(jobId));
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
