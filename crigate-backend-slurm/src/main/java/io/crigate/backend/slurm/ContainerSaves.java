package io.crigate.backend.slurm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes container records, some at once and some a moment later in batches.
 *
 * <p>A record may be saved later only when a restart can rebuild what it says from Slurm: a job
 * id (after a restart every unstarted container is looked up by its job name, in squeue and then
 * sacct) and a job's end (every started, unfinished container is followed again, and squeue or
 * sacct reports the end). Taking those writes off StartContainer leaves sbatch as the only slow
 * step of a submission, and one transaction per batch costs less than one per container.
 *
 * <p>One lock orders every write of a container record, so a batch written late can never
 * replace a newer record saved at once, nor bring back a removed one.
 */
final class ContainerSaves implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ContainerSaves.class);
  /** Long enough to gather a burst of submissions into one write, short enough to rarely matter. */
  static final long DELAY_MILLIS = 100;

  private final RecordStore records;
  /** Guards {@link #pending}; not a monitor, since SQLite writes run under it (see {@link KeyedLocks}). */
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Records.Container> pending = new LinkedHashMap<>();
  private final FlushTimer flusher;

  /**
   * When a batch is written: {@link #DELAY_MILLIS} later on a daemon thread, or when a test says,
   * so tests can order a late batch against other writes without sleeping.
   */
  interface FlushTimer extends AutoCloseable {
    void schedule(Runnable flush);

    /** Drops what is scheduled; {@link ContainerSaves#close} writes it itself. */
    @Override
    void close();

    static FlushTimer daemon() {
      ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("slurm-record-saves").factory());
      return new FlushTimer() {
        @Override
        public void schedule(Runnable flush) {
          executor.schedule(flush, DELAY_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
          executor.shutdownNow();
        }
      };
    }
  }

  ContainerSaves(RecordStore records) {
    this(records, FlushTimer.daemon());
  }

  ContainerSaves(RecordStore records, FlushTimer flusher) {
    this.records = records;
    this.flusher = flusher;
  }

  /** On disk when this returns. */
  void now(Records.Container container) {
    lock.lock();
    try {
      pending.remove(container.id());
      records.put(container);
    } finally {
      lock.unlock();
    }
  }

  /** On disk within {@link #DELAY_MILLIS}, unless a crash comes first (see the class comment). */
  void later(Records.Container container) {
    lock.lock();
    try {
      if (pending.isEmpty()) {
        flusher.schedule(this::flushQuietly);
      }
      pending.put(container.id(), container);
    } finally {
      lock.unlock();
    }
  }

  void remove(String id) {
    lock.lock();
    try {
      pending.remove(id);
      records.removeContainer(id);
    } finally {
      lock.unlock();
    }
  }

  /** Writes what is pending; on failure it stays pending for the next attempt. */
  void flush() {
    lock.lock();
    try {
      if (!pending.isEmpty()) {
        records.putAll(pending.values());
        pending.clear();
      }
    } finally {
      lock.unlock();
    }
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (RuntimeException e) {
      LOG.warn("{} container records not saved yet, retrying: {}", pendingCount(), e.getMessage());
      flusher.schedule(this::flushQuietly);
    }
  }

  private int pendingCount() {
    lock.lock();
    try {
      return pending.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    flusher.close();
    flush();
  }
}
