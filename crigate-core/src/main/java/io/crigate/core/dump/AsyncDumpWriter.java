package io.crigate.core.dump;

import java.io.IOException;
import java.io.Writer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes dumped calls on its own thread so a slow disk never holds up a CRI call. The queue is
 * bounded: when it is full a call is dropped, counted, and the count is written into the dump
 * (and logged) as soon as the writer catches up.
 */
final class AsyncDumpWriter implements AutoCloseable {

  static final int QUEUE_CAPACITY = 4096;
  private static final Logger log = LoggerFactory.getLogger(AsyncDumpWriter.class);
  private static final long POLL_MILLIS = 200;
  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private final BlockingQueue<DumpedCall> queue;
  private final DumpEncoder encoder;
  private final Writer out;
  private final boolean ownsOut;
  private final Clock clock;
  private final AtomicLong dropped = new AtomicLong();
  private final Thread thread;
  private long droppedReported;
  private volatile boolean closing;

  AsyncDumpWriter(DumpEncoder encoder, Writer out, boolean ownsOut, int capacity, Clock clock) {
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.encoder = encoder;
    this.out = out;
    this.ownsOut = ownsOut;
    this.clock = clock;
    this.thread = Thread.ofPlatform().name("crigate-dump").daemon().start(this::run);
  }

  /** Never blocks; a call that does not fit is counted as dropped. */
  void submit(DumpedCall call) {
    if (!queue.offer(call)) {
      dropped.incrementAndGet();
    }
  }

  long dropped() {
    return dropped.get();
  }

  private void run() {
    List<DumpedCall> batch = new ArrayList<>();
    while (!closing || !queue.isEmpty()) {
      try {
        DumpedCall first = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch);
        batch.forEach(this::write);
        batch.clear();
        reportDrops();
        out.flush();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | RuntimeException | Error e) {
        // The writer must outlive any one batch: a dead dump thread would silently stop the dump.
        batch.clear();
        log.warn("message dump: writing failed: {}", e.toString());
      }
    }
  }

  /** Any failure of one call (even a StackOverflowError in redaction) drops that call only, counted. */
  private void write(DumpedCall call) {
    try {
      out.write(encoder.encode(call));
    } catch (IOException | RuntimeException | Error e) {
      dropped.incrementAndGet();
      log.warn("message dump: cannot write {}: {}", call.method(), e.toString());
    }
  }

  private void reportDrops() throws IOException {
    long total = dropped.get();
    if (total > droppedReported) {
      out.write(encoder.encodeDropped(clock.instant(), total - droppedReported));
      log.warn("message dump fell behind: {} calls not dumped ({} in total)", total - droppedReported, total);
      droppedReported = total;
    }
  }

  /** Writes what is queued, then stops. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(CLOSE_WAIT_MILLIS);
      reportDrops();
      out.flush();
      if (ownsOut) {
        out.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      log.warn("message dump: close failed: {}", e.toString());
    }
  }
}
