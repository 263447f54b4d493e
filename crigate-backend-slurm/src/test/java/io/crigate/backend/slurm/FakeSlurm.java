package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An in-memory Slurm for unit tests of the backend's parts: jobs live in "slurmctld" until purged
 * to "accounting", the test moves them between states, and can make the cluster unreachable, refuse
 * the login, or drop the connection around an sbatch. Every call it answers is recorded.
 */
final class FakeSlurm implements SlurmClient {

  /** What sbatch does with the next submission. */
  enum Submit {
    ACCEPT,
    /** sbatch answers and refuses the job (a bad option, say). */
    REJECT,
    /** the connection breaks before slurmctld sees the job. */
    LOST_BEFORE,
    /** slurmctld accepts the job, then the connection breaks before its id comes back. */
    LOST_AFTER,
    /** slurmctld accepts the job, then crigate dies before it can store the id. */
    CRASH_AFTER
  }

  /** One scancel as crigate sent it. */
  record Cancel(List<Long> jobIds, String signal) {}

  private static final class Job {
    final long id;
    final String name;
    String state = "PENDING";
    String reason = "Priority";
    Integer exitCode;
    Integer signal;
    Instant start;
    Instant end;
    boolean inController = true;
    boolean ignoresTerm;

    Job(long id, String name) {
      this.id = id;
      this.name = name;
    }

    JobState view() {
      return new JobState(id, name, state, reason,
          exitCode == null ? Optional.empty() : Optional.of(new JobState.Exit(exitCode, signal)),
          Optional.ofNullable(start), Optional.ofNullable(end));
    }
  }

  private final Map<Long, Job> jobs = new LinkedHashMap<>();
  private final List<JobSpec> submitted = new ArrayList<>();
  private final List<Cancel> cancels = new ArrayList<>();
  private final List<List<String>> execs = new ArrayList<>();
  private long nextId = 100;
  private Submit nextSubmit = Submit.ACCEPT;
  private boolean unreachable;
  private boolean refusing;
  private int queueCalls;

  // ---- what the test controls

  synchronized void nextSubmit(Submit behaviour) {
    nextSubmit = behaviour;
  }

  synchronized void unreachable(boolean value) {
    unreachable = value;
  }

  synchronized void refuseLogin(boolean value) {
    refusing = value;
  }

  synchronized void run(long jobId) {
    Job job = jobs.get(jobId);
    job.state = "RUNNING";
    job.reason = "None";
    job.start = Instant.ofEpochSecond(1_000);
  }

  /** The job's script ends: COMPLETED with 0, FAILED otherwise. */
  synchronized void exit(long jobId, int code) {
    end(jobs.get(jobId), code == 0 ? "COMPLETED" : "FAILED", code, 0);
  }

  synchronized void end(long jobId, String state, int code, int signal) {
    end(jobs.get(jobId), state, code, signal);
  }

  /** The job's processes survive SIGTERM (a shell that traps it). */
  synchronized void ignoreTerm(long jobId) {
    jobs.get(jobId).ignoresTerm = true;
  }

  /** slurmctld forgets the job (MinJobAge); accounting still has it. */
  synchronized void purgeFromController(long jobId) {
    jobs.get(jobId).inController = false;
  }

  /** Neither slurmctld nor accounting know the job any more. */
  synchronized void forget(long jobId) {
    jobs.remove(jobId);
  }

  // ---- what the test reads

  synchronized List<JobSpec> submitted() {
    return List.copyOf(submitted);
  }

  synchronized List<Long> jobIds() {
    return List.copyOf(jobs.keySet());
  }

  synchronized List<Cancel> cancels() {
    return List.copyOf(cancels);
  }

  synchronized List<List<String>> execs() {
    return List.copyOf(execs);
  }

  synchronized int queueCalls() {
    return queueCalls;
  }

  // ---- SlurmClient

  @Override
  public synchronized long submit(JobSpec spec) {
    reachable();
    Submit behaviour = nextSubmit;
    nextSubmit = Submit.ACCEPT;
    switch (behaviour) {
      case REJECT -> throw new CrigateException.InvalidArgument("sbatch rejected job " + spec.name());
      case LOST_BEFORE -> throw new CrigateException.Unavailable("connection lost before sbatch");
      default -> { }
    }
    long id = nextId++;
    jobs.put(id, new Job(id, spec.name()));
    submitted.add(spec);
    return switch (behaviour) {
      case LOST_AFTER -> throw new CrigateException.Unavailable("connection lost after sbatch");
      case CRASH_AFTER -> throw new SimulatedCrash();
      default -> id;
    };
  }

  @Override
  public synchronized List<JobState> queue(Set<Long> jobIds) {
    reachable();
    queueCalls++;
    return jobs.values().stream().filter(job -> job.inController && jobIds.contains(job.id)).map(Job::view).toList();
  }

  @Override
  public synchronized Map<Long, JobState> finals(Collection<Long> jobIds) {
    reachable();
    Map<Long, JobState> found = new HashMap<>();
    jobs.values().stream().filter(job -> jobIds.contains(job.id)).map(Job::view).filter(JobState::settled)
        .forEach(job -> found.put(job.jobId(), job));
    return found;
  }

  @Override
  public synchronized Map<String, Long> findByNames(Collection<String> names) {
    reachable();
    Map<String, Long> found = new HashMap<>();
    jobs.values().stream().filter(job -> names.contains(job.name)).forEach(job -> found.putIfAbsent(job.name, job.id));
    return found;
  }

  @Override
  public synchronized void cancel(List<Long> jobIds, String signal) {
    reachable();
    cancels.add(new Cancel(List.copyOf(jobIds), signal));
    for (long id : jobIds) {
      Job job = jobs.get(id);
      if (job == null || job.end != null) {
        continue;
      }
      switch (signal) {
        case "" -> end(job, "CANCELLED", 0, 15);
        case "TERM" -> {
          if (!job.ignoresTerm) {
            end(job, "FAILED", 0, 15);
          }
        }
        case "KILL" -> end(job, "FAILED", 0, 9);
        default -> throw new IllegalArgumentException("signal " + signal);
      }
    }
  }

  @Override
  public synchronized CommandResult exec(long jobId, List<String> argv) {
    reachable();
    execs.add(List.copyOf(argv));
    return new CommandResult(0, new byte[0], new byte[0]);
  }

  @Override
  public Optional<CommandResult> runOnCluster(List<String> argv) {
    return Optional.empty();
  }

  @Override
  public Optional<Interactive.Launcher> interactive() {
    return Optional.empty();
  }

  @Override
  public void close() {}

  private void reachable() {
    if (unreachable) {
      throw new CrigateException.Unavailable("slurm: squeue failed (exit 1): Unable to contact slurm controller");
    }
    if (refusing) {
      throw new CrigateException.PermissionDenied("ssh fake: login refused");
    }
  }

  private static void end(Job job, String state, int code, int signal) {
    job.state = state;
    job.reason = "None";
    job.exitCode = code;
    job.signal = signal;
    job.start = job.start == null ? Instant.ofEpochSecond(1_000) : job.start;
    job.end = Instant.ofEpochSecond(2_000);
  }
}
