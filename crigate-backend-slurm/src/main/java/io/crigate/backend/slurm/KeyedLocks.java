package io.crigate.backend.slurm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per container id, dropped when its last user lets go. Counting users inside the map's
 * per-key {@code compute} is what makes dropping safe: an entry goes only while nobody holds or
 * waits for it, so two threads can never end up holding two different locks for the same id (which
 * removing the entry from outside the lock allowed). ReentrantLock rather than a monitor: sbatch
 * and squeue run while one is held, and {@code synchronized} pins a virtual thread to its carrier
 * for that long before JDK 24.
 */
final class KeyedLocks {

  /** Held until closed; closing twice releases once. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /** A lock and the number of threads holding or waiting for it; {@code users} changes only inside compute. */
  private static final class Entry {
    private final ReentrantLock lock = new ReentrantLock();
    private int users;
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  Held hold(String id) {
    Entry entry = entries.compute(id, (key, existing) -> {
      Entry used = existing == null ? new Entry() : existing;
      used.users++;
      return used;
    });
    entry.lock.lock();
    return new Held() {
      private boolean released;

      @Override
      public void close() {
        if (released) {
          return;
        }
        released = true;
        entry.lock.unlock();
        entries.computeIfPresent(id, (key, current) -> --current.users == 0 ? null : current);
      }
    };
  }
}
