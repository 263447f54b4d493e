package io.crigate.interlink;

import io.crigate.spi.DurableStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A DurableStore in memory; shared between two plugin instances it stands for the state that survives a restart. */
public final class MemoryStore implements DurableStore {

  private final Map<String, byte[]> entries = new TreeMap<>();

  @Override
  public synchronized void put(String key, byte[] value) {
    entries.put(key, value.clone());
  }

  @Override
  public synchronized Optional<byte[]> get(String key) {
    return Optional.ofNullable(entries.get(key)).map(byte[]::clone);
  }

  @Override
  public synchronized void remove(String key) {
    entries.remove(key);
  }

  @Override
  public synchronized Map<String, byte[]> entries() {
    return new TreeMap<>(entries);
  }
}
