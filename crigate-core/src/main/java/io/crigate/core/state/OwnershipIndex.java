package io.crigate.core.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory copy of the ownership tables, read on every routed call. Reads take no lock; a new
 * record appears only after its SQLite transaction committed (see {@link Database#write}), a removed
 * one disappears at once, its delete queued for the next transaction ({@link Database#defer}): the
 * index may lack a row the disk still has, never the reverse.
 */
final class OwnershipIndex {
  final Map<String, SandboxRecord> sandboxes = new ConcurrentHashMap<>();
  final Map<String, ContainerRecord> containers = new ConcurrentHashMap<>();

  void forgetSandbox(String id) {
    sandboxes.remove(id);
    containers.values().removeIf(container -> container.sandboxId().equals(id));
  }
}
