package io.crigate.core.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory copy of the ownership tables, read on every routed call. Reads take no lock; writes
 * happen only after the matching SQLite transaction committed (see {@link Database#write}).
 */
final class OwnershipIndex {
  final Map<String, SandboxRecord> sandboxes = new ConcurrentHashMap<>();
  final Map<String, ContainerRecord> containers = new ConcurrentHashMap<>();

  void forgetSandbox(String id) {
    sandboxes.remove(id);
    containers.values().removeIf(container -> container.sandboxId().equals(id));
  }
}
