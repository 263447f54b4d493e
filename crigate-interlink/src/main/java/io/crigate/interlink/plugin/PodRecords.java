package io.crigate.interlink.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.DurableStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The plugin's pods, in memory and in its own namespace of crigate's durable store, so a restarted
 * plugin answers for every pod it created and creates nothing twice. One writer per pod at a time.
 */
final class PodRecords {

  private static final String PREFIX = "pod/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DurableStore store;
  private final Map<String, PodRecord> pods = new ConcurrentHashMap<>();

  PodRecords(DurableStore store) {
    this.store = store;
    store.entries().forEach((key, value) -> {
      if (key.startsWith(PREFIX)) {
        PodRecord record = decode(value);
        pods.put(record.uid(), record);
      }
    });
  }

  Optional<PodRecord> get(String uid) {
    return Optional.ofNullable(pods.get(uid));
  }

  List<PodRecord> all() {
    return List.copyOf(pods.values());
  }

  /** Saves a new record unless one exists; returns the one that is now stored. */
  synchronized PodRecord addIfAbsent(PodRecord record) {
    PodRecord existing = pods.get(record.uid());
    if (existing != null) {
      return existing;
    }
    save(record);
    return record;
  }

  synchronized PodRecord update(String uid, UnaryOperator<PodRecord> change) {
    PodRecord current = pods.get(uid);
    if (current == null) {
      return null;
    }
    PodRecord next = change.apply(current);
    save(next);
    return next;
  }

  synchronized void remove(String uid) {
    store.remove(PREFIX + uid);
    pods.remove(uid);
  }

  private void save(PodRecord record) {
    try {
      store.put(PREFIX + record.uid(), JSON.writeValueAsBytes(record));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    pods.put(record.uid(), record);
  }

  private static PodRecord decode(byte[] value) {
    try {
      return JSON.readValue(value, PodRecord.class);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable interLink pod record", e);
    }
  }
}
