package io.crigate.ttrpc;

import io.crigate.ttrpc.wire.KeyValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Call metadata: keys with one or more values, sent as repeated key/value pairs in order. */
public record Metadata(Map<String, List<String>> entries) {

  public static final Metadata EMPTY = new Metadata(Map.of());

  public Metadata {
    entries = Map.copyOf(entries);
  }

  public static Metadata of(String key, String... values) {
    return new Metadata(Map.of(key, List.of(values)));
  }

  public List<String> get(String key) {
    return entries.getOrDefault(key, List.of());
  }

  List<KeyValue> toWire() {
    List<KeyValue> pairs = new ArrayList<>();
    entries.forEach((k, vs) -> vs.forEach(v -> pairs.add(KeyValue.newBuilder().setKey(k).setValue(v).build())));
    return pairs;
  }

  static Metadata fromWire(List<KeyValue> pairs) {
    if (pairs.isEmpty()) {
      return EMPTY;
    }
    Map<String, List<String>> map = new LinkedHashMap<>();
    pairs.forEach(kv -> map.computeIfAbsent(kv.getKey(), k -> new ArrayList<>()).add(kv.getValue()));
    map.replaceAll((k, vs) -> List.copyOf(vs));
    return new Metadata(map);
  }
}
