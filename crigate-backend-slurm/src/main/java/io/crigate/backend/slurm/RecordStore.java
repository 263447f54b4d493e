package io.crigate.backend.slurm;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.DurableStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** Typed access to the backend's durable records; every write is on disk when it returns. */
final class RecordStore {

  private static final String SANDBOX = "sandbox/";
  private static final String CONTAINER = "container/";
  private static final String IMAGE = "image/";
  private static final String LOG = "log/";
  private static final String LOGIN = "login/";

  private final DurableStore store;
  private final ObjectMapper json = new ObjectMapper();

  RecordStore(DurableStore store) {
    this.store = store;
  }

  void put(Records.Sandbox sandbox) {
    write(SANDBOX + sandbox.id(), sandbox);
  }

  void put(Records.Container container) {
    write(CONTAINER + container.id(), container);
  }

  /** Several containers in one write: all stored or, after a crash, none. */
  void putAll(Collection<Records.Container> batch) {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    batch.forEach(container -> entries.put(CONTAINER + container.id(), bytes(container)));
    store.putAll(entries);
  }

  void put(Records.Image image) {
    write(IMAGE + image.ref(), image);
  }

  void put(Records.Login login) {
    write(LOGIN + login.key(), login);
  }

  void putLog(String containerId, LogPump.Offsets offsets) {
    write(LOG + containerId, offsets);
  }

  void removeSandbox(String id) {
    store.remove(SANDBOX + id);
  }

  void removeContainer(String id) {
    store.remove(CONTAINER + id);
    store.remove(LOG + id);
  }

  void removeLogin(String key) {
    store.remove(LOGIN + key);
  }

  void removeImage(String ref) {
    store.remove(IMAGE + ref);
  }

  Map<String, Records.Sandbox> sandboxes() {
    return read(SANDBOX, Records.Sandbox.class);
  }

  Map<String, Records.Container> containers() {
    return read(CONTAINER, Records.Container.class);
  }

  Map<String, Records.Image> images() {
    return read(IMAGE, Records.Image.class);
  }

  Map<String, Records.Login> logins() {
    return read(LOGIN, Records.Login.class);
  }

  LogPump.Offsets log(String containerId) {
    return store.get(LOG + containerId).map(bytes -> parse(bytes, LogPump.Offsets.class)).orElse(LogPump.Offsets.START);
  }

  private void write(String key, Object value) {
    store.put(key, bytes(value));
  }

  private byte[] bytes(Object value) {
    try {
      return json.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private <T> Map<String, T> read(String prefix, Class<T> type) {
    Map<String, T> result = new LinkedHashMap<>();
    store.entries().forEach((key, value) -> {
      if (key.startsWith(prefix)) {
        result.put(key.substring(prefix.length()), parse(value, type));
      }
    });
    return result;
  }

  private <T> T parse(byte[] bytes, Class<T> type) {
    try {
      return json.readValue(bytes, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
