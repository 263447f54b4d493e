package io.crigate.backend.slurm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
  private final Map<String, Records.Container> pending = new LinkedHashMap<>();
  private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().daemon().name("slurm-record-saves").factory());

  ContainerSaves(RecordStore records) {
    this.records = records;
  }

  /** On disk when this returns. */
  synchronized void now(Records.Container container) {
    pending.remove(container.id());
    records.put(container);
  }

  /** On disk within {@link #DELAY_MILLIS}, unless a crash comes first (see the class comment). */
  synchronized void later(Records.Container container) {
    if (pending.isEmpty()) {
      flusher.schedule(this::flushQuietly, DELAY_MILLIS, TimeUnit.MILLISECONDS);
    }
    pending.put(container.id(), container);
  }

  synchronized void remove(String id) {
    pending.remove(id);
    records.removeContainer(id);
  }

  /** Writes what is pending; on failure it stays pending for the next attempt. */
  synchronized void flush() {
    if (!pending.isEmpty()) {
      records.putAll(pending.values());
      pending.clear();
    }
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (RuntimeException e) {
      LOG.warn("{} container records not saved yet, retrying: {}", pendingCount(), e.getMessage());
      flusher.schedule(this::flushQuietly, DELAY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private synchronized int pendingCount() {
    return pending.size();
  }

  @Override
  public void close() {
    flusher.shutdownNow();
    flush();
  }
}
