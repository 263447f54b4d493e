package io.crigate.backend.slurm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per container id. ReentrantLock rather than a monitor: sbatch and squeue run while one
 * is held, and {@code synchronized} pins a virtual thread to its carrier for that long before JDK 24.
 */
final class KeyedLocks {

  /** Held until closed. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

  Held hold(String id) {
    ReentrantLock lock = locks.computeIfAbsent(id, key -> new ReentrantLock());
    lock.lock();
    return lock::unlock;
  }

  void forget(String id) {
    locks.remove(id);
  }
}
