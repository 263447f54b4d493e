package io.crigate.spi;

import java.util.Map;
import java.util.Optional;

/**
 * A small crash-safe map that core gives each backend for its own records (job ids, prepared
 * scripts). A write has reached disk when the call returns; a crash never leaves half a value.
 * Backends cannot see each other's keys.
 */
public interface DurableStore {

  void put(String key, byte[] value);

  Optional<byte[]> get(String key);

  void remove(String key);

  /** A consistent snapshot of every entry, in key order. */
  Map<String, byte[]> entries();
}
