package io.crigate.interlink.plugin;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What the plugin keeps per pod: the backend's ids and why anything failed. Whether a container
 * was started is read back from the backend, so a crash between start and save loses nothing.
 *
 * @param failure why the pod as a whole could not be created (then no container runs), or null
 * @param launched every container has been started (or failed to), so the launcher is done with it
 */
record PodRecord(String uid, String namespace, String name, String sandboxId, List<Entry> containers,
    Failure failure, boolean launched, long graceSeconds) {

  /** One init container or container, in spec order. {@code id} is null until CreateContainer. */
  record Entry(String name, boolean init, String image, String id, Failure failure) {

    Entry withId(String newId) {
      return new Entry(name, init, image, newId, failure);
    }

    Entry failed(Failure why) {
      return new Entry(name, init, image, id, why);
    }
  }

  /** A reason for kubectl ({@code SubmitFailed}, {@code CreateFailed}) and the backend's message. */
  record Failure(String reason, String message) {}

  PodRecord withSandbox(String id) {
    return new PodRecord(uid, namespace, name, id, containers, failure, launched, graceSeconds);
  }

  PodRecord failed(Failure why) {
    return new PodRecord(uid, namespace, name, sandboxId, containers, why, true, graceSeconds);
  }

  PodRecord asLaunched() {
    return new PodRecord(uid, namespace, name, sandboxId, containers, failure, true, graceSeconds);
  }

  PodRecord withEntry(int index, UnaryOperator<Entry> change) {
    List<Entry> copy = new ArrayList<>(containers);
    copy.set(index, change.apply(copy.get(index)));
    return new PodRecord(uid, namespace, name, sandboxId, List.copyOf(copy), failure, launched, graceSeconds);
  }

  Entry container(String containerName) {
    return containers.stream().filter(e -> e.name().equals(containerName)).findFirst().orElse(null);
  }
}
