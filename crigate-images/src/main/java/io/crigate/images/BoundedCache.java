package io.crigate.images;

import java.util.LinkedHashMap;
import java.util.Map;

/** A thread-safe map that forgets its least recently used entry once it holds {@code capacity}. */
public final class BoundedCache<K, V> {

  private final Map<K, V> entries;

  public BoundedCache(int capacity) {
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
      }
    };
  }

  public synchronized V get(K key) {
    return entries.get(key);
  }

  /** Stores {@code value} unless {@code key} is present; returns whether it stored it. */
  public synchronized boolean putIfAbsent(K key, V value) {
    return entries.putIfAbsent(key, value) == null;
  }

  synchronized void put(K key, V value) {
    entries.put(key, value);
  }

  synchronized void remove(K key) {
    entries.remove(key);
  }

  synchronized int size() {
    return entries.size();
  }
}
