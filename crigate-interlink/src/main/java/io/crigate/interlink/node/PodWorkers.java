package io.crigate.interlink.node;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs pod events on a bounded number of threads, one queue per pod: the events of one pod run one
 * after the other in the order they came (so a delete never overtakes the create it follows), while
 * different pods proceed in parallel. A pod with more events waiting goes to the back of the line
 * after each one, so a busy pod cannot hold a worker while others wait.
 */
final class PodWorkers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PodWorkers.class);

  private final ExecutorService pool;
  /** Pods with an event running or waiting, and what waits behind the running one. Guarded by itself. */
  private final Map<String, Queue<Runnable>> waiting = new HashMap<>();

  PodWorkers(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("pod workers must be at least 1, not " + workers);
    }
    this.pool = Executors.newFixedThreadPool(workers, Thread.ofVirtual().name("vnode-pods-", 0).factory());
  }

  /** Runs {@code event} after every event submitted before it for the same {@code pod}. */
  void submit(String pod, Runnable event) {
    synchronized (waiting) {
      Queue<Runnable> queue = waiting.get(pod);
      if (queue != null) {
        queue.add(event);
        return;
      }
      waiting.put(pod, new ArrayDeque<>());
    }
    execute(pod, event);
  }

  private void run(String pod, Runnable event) {
    try {
      event.run();
    } catch (RuntimeException e) {
      LOG.warn("pod {}: event failed, retried on its next event or resync: {}", pod, e.getMessage());
    }
    Runnable next;
    synchronized (waiting) {
      next = waiting.get(pod).poll();
      if (next == null) {
        waiting.remove(pod);
        return;
      }
    }
    execute(pod, next);
  }

  private void execute(String pod, Runnable event) {
    try {
      pool.execute(() -> run(pod, event));
    } catch (RejectedExecutionException e) {
      LOG.debug("pod {}: event dropped, the node is closing", pod);
    }
  }

  /** Drops what waits, interrupts what runs, and waits briefly for it to end. */
  @Override
  public void close() {
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
