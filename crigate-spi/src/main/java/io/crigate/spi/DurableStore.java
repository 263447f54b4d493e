package io.crigate.spi;

import java.util.Map;
import java.util.Optional;

/**
 * A small crash-safe map that core gives each backend for its own records (job ids, prepared
 * scripts). A write has reached disk when the call returns; a crash never leaves half a value.
 * Backends cannot see each other's keys. One exception: what an adjustment plugin writes while it
 * answers CreateContainer reaches disk in the state database's next transaction, normally the
 * container's ownership record once the runtime has created it (still before any later write, and
 * visible to reads at once).
 */
public interface DurableStore {

  void put(String key, byte[] value);

  /**
   * Writes several entries at once: all of them or, after a crash, none. Stores that can should
   * make this one transaction, which is what makes batching worth it.
   */
  default void putAll(Map<String, byte[]> entries) {
    entries.forEach(this::put);
  }

  Optional<byte[]> get(String key);

  void remove(String key);

  /** A consistent snapshot of every entry, in key order. */
  Map<String, byte[]> entries();
}
