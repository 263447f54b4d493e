package io.crigate.policy;

import io.crigate.spi.DurableStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** One policy's part of the policy plugin's store, so a switch back finds a policy's own records only. */
record PrefixedStore(DurableStore store, String prefix) implements DurableStore {

  @Override
  public void put(String key, byte[] value) {
    store.put(prefix + key, value);
  }

  @Override
  public Optional<byte[]> get(String key) {
    return store.get(prefix + key);
  }

  @Override
  public void remove(String key) {
    store.remove(prefix + key);
  }

  @Override
  public Map<String, byte[]> entries() {
    Map<String, byte[]> mine = new TreeMap<>();
    store.entries().forEach((key, value) -> {
      if (key.startsWith(prefix)) {
        mine.put(key.substring(prefix.length()), value);
      }
    });
    return mine;
  }
}
