package io.crigate.policy;

import io.crigate.spi.DurableStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A durable store kept in memory, shared with crigate-policy-kube's tests through the test jar. */
public final class MemoryStore implements DurableStore {

  private final Map<String, byte[]> entries = new TreeMap<>();

  @Override
  public void put(String key, byte[] value) {
    entries.put(key, value);
  }

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  @Override
  public void remove(String key) {
    entries.remove(key);
  }

  @Override
  public Map<String, byte[]> entries() {
    return new TreeMap<>(entries);
  }
}
