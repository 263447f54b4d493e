package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the state of every tracked job from ONE squeue call per interval, however many jobs there
 * are (squeue reports exit codes of ended jobs too); only jobs slurmctld has already forgotten
 * cost one more, batched, accounting lookup.
 * ContainerStatus and ListContainers read only this cache. When slurmctld cannot be reached, or
 * refuses the login, the interval backs off (doubling, bounded) and readers get the same kind of
 * failure (Unavailable or PermissionDenied) until a poll succeeds again.
 */
final class JobPoller implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobPoller.class);
  private static final int MAX_BACKOFF_FACTOR = 16;
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
  /**
   * Polls skipped in a row at most while submissions keep arriving: an squeue over every job
   * slurmctld remembers holds its job read lock, which each sbatch of the burst waits for, while
   * the burst's own jobs are reported from the submission until then anyway.
   */
  static final int MAX_DEFERRED_POLLS = 4;

  private final SlurmClient client;
  private final Duration interval;
  private final Consumer<JobState> onSettled;
  private final Set<Long> tracked = ConcurrentHashMap.newKeySet();
  private final Map<Long, JobState> cache = new ConcurrentHashMap<>();
  private final AtomicLong polls = new AtomicLong();
  /** Not a monitor: squeue runs under it (see {@link KeyedLocks}). */
  private final ReentrantLock pollLock = new ReentrantLock();
  /** Why the last poll failed, or empty after a successful one. */
  private volatile Optional<PollFailure> lastFailure = Optional.empty();
  private volatile PollObserver observer = (nanos, commands) -> {};
  private volatile boolean running = true;
  private volatile long lastSubmitNanos;
  private final Thread thread;

  JobPoller(String cluster, SlurmClient client, Duration interval, Consumer<JobState> onSettled) {
    this.client = client;
    this.interval = interval;
    this.onSettled = onSettled;
    this.thread = Thread.ofVirtual().name("slurm-poller-" + cluster).unstarted(this::loop);
    this.lastSubmitNanos = System.nanoTime() - interval.toNanos();
  }

  /** Told about every successful poll: how long it took and how many Slurm commands it ran. */
  @FunctionalInterface
  interface PollObserver {
    void polled(long nanos, int commands);
  }

  void observe(PollObserver observer) {
    this.observer = observer;
  }

  /** Called as a submission starts; the timed loop defers its next polls while they keep coming. */
  void submitting() {
    lastSubmitNanos = System.nanoTime();
  }

  /** Whether the timed loop skips this poll: a submission within the last interval, and not too many skipped. */
  static boolean defer(long nowNanos, long lastSubmitNanos, Duration interval, int deferredInARow) {
    return deferredInARow < MAX_DEFERRED_POLLS && nowNanos - lastSubmitNanos < interval.toNanos();
  }

  void start() {
    thread.start();
  }

  void track(long jobId) {
    tracked.add(jobId);
  }

  /** Moves every tracked job to {@code next}, which replaces this poller (a login's new password). */
  void handOver(JobPoller next) {
    next.tracked.addAll(tracked);
    close();
  }

  void untrack(long jobId) {
    tracked.remove(jobId);
    cache.remove(jobId);
  }

  /**
   * The last polled state of a tracked job; empty until the first poll after submission sees it.
   *
   * @throws CrigateException.Unavailable when the last poll could not reach Slurm
   * @throws CrigateException.PermissionDenied when the last poll's login was refused
   */
  Optional<JobState> state(long jobId) {
    lastFailure.ifPresent(failure -> {
      throw failure.again();
    });
    return Optional.ofNullable(cache.get(jobId));
  }

  /** A failed poll, as readers of the cache are told about it until the next poll succeeds. */
  private record PollFailure(CrigateException cause) {
    CrigateException again() {
      String message = "slurm status unknown: " + cause.getMessage();
      return cause instanceof CrigateException.PermissionDenied
          ? new CrigateException.PermissionDenied(message)
          : new CrigateException.Unavailable(message, cause);
    }
  }

  /** How many polls have completed; harnesses divide command counts by it. */
  long polls() {
    return polls.get();
  }

  /** One poll now, on the caller's thread (StopContainer waits with it). */
  void pollNow() {
    pollLock.lock();
    try {
      pollOnce();
      lastFailure = Optional.empty();
    } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
      // A login refused after it once worked (its password changed) leaves the jobs' status
      // unknown, not gone: the loop backs off as for an outage, readers learn it was a refusal.
      lastFailure = Optional.of(new PollFailure(e));
      throw e;
    } finally {
      pollLock.unlock();
    }
  }

  private void pollOnce() {
    long start = System.nanoTime();
    List<JobState> queue = client.queue(tracked);
    Map<Long, JobState> queued = new HashMap<>();
    queue.forEach(job -> queued.put(job.jobId(), job));
    Set<Long> needFinals = ConcurrentHashMap.newKeySet();
    for (long id : tracked) {
      JobState seen = queued.get(id);
      if (seen == null || seen.terminal() && !seen.settled()) {
        needFinals.add(id);
      }
    }
    Map<Long, JobState> finals = needFinals.isEmpty() ? Map.of() : client.finals(needFinals);
    for (long id : tracked) {
      JobState state = finals.containsKey(id) ? finals.get(id) : queued.get(id);
      if (state == null) {
        continue;
      }
      cache.put(id, state);
      if (state.settled()) {
        onSettled.accept(state);
        tracked.remove(id);
      }
    }
    polls.incrementAndGet();
    observer.polled(System.nanoTime() - start, needFinals.isEmpty() ? 1 : 2);
  }

  private void loop() {
    long factor = 1;
    int deferred = 0;
    while (running) {
      try {
        if (factor == 1 && defer(System.nanoTime(), lastSubmitNanos, interval, deferred)) {
          deferred++;
          Thread.sleep(interval);
          continue;
        }
      } catch (InterruptedException e) {
        return;
      }
      deferred = 0;
      try {
        pollNow();
        if (factor > 1) {
          LOG.info("slurm reachable again; polling every {}", interval);
        }
        factor = 1;
      } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
        if (!running) {
          return; // close() interrupted the poll: not an outage
        }
        factor = Math.min(factor * 2, MAX_BACKOFF_FACTOR);
        LOG.warn("slurm poll failed, retrying in {}: {}", interval.multipliedBy(factor), e.getMessage());
      } catch (RuntimeException e) {
        if (!running) {
          return;
        }
        LOG.error("slurm poll failed unexpectedly", e);
      }
      try {
        Thread.sleep(interval.multipliedBy(factor));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops the loop and waits for a poll in flight, so the client can be closed right after. */
  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(CLOSE_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
