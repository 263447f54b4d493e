package io.crigate.backend.slurm;

import com.google.protobuf.InvalidProtocolBufferException;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.spi.CrigateException;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The backend's pods and containers in memory, loaded from the durable store at start; every
 * change is stored before (or, for what Slurm can tell again, soon after) it is visible here.
 * Also the per-container lock that orders changes to one container.
 */
final class Inventory implements AutoCloseable {

  private final RecordStore records;
  private final ContainerSaves saves;
  private final Clock clock;
  private final Map<String, Records.Sandbox> sandboxes = new ConcurrentHashMap<>();
  private final Map<String, Records.Container> containers = new ConcurrentHashMap<>();
  private final KeyedLocks locks = new KeyedLocks();

  Inventory(RecordStore records, Clock clock) {
    this.records = records;
    this.saves = new ContainerSaves(records);
    this.clock = clock;
    sandboxes.putAll(records.sandboxes());
    containers.putAll(records.containers());
  }

  RecordStore records() {
    return records;
  }

  Clock clock() {
    return clock;
  }

  long nowNanos() {
    return JobOutcome.nanos(clock.instant());
  }

  KeyedLocks.Held hold(String containerId) {
    return locks.hold(containerId);
  }

  // ---- pods

  Collection<Records.Sandbox> sandboxes() {
    return sandboxes.values();
  }

  Optional<Records.Sandbox> findSandbox(String id) {
    return Optional.ofNullable(sandboxes.get(id));
  }

  Records.Sandbox sandbox(String id) {
    return findSandbox(id).orElseThrow(() -> new CrigateException.NotFound("sandbox %s".formatted(id)));
  }

  void put(Records.Sandbox sandbox) {
    records.put(sandbox);
    sandboxes.put(sandbox.id(), sandbox);
  }

  void removeSandbox(String id) {
    records.removeSandbox(id);
    sandboxes.remove(id);
  }

  // ---- containers

  Collection<Records.Container> containers() {
    return containers.values();
  }

  Optional<Records.Container> findContainer(String id) {
    return Optional.ofNullable(containers.get(id));
  }

  Records.Container container(String id) {
    return findContainer(id).orElseThrow(() -> new CrigateException.NotFound("container %s".formatted(id)));
  }

  List<Records.Container> containersOf(String sandboxId) {
    return containers.values().stream().filter(c -> c.sandboxId().equals(sandboxId)).toList();
  }

  /** On disk when this returns. */
  Records.Container save(Records.Container container) {
    saves.now(container);
    containers.put(container.id(), container);
    return container;
  }

  /** For what a restart can learn from Slurm again: see {@link ContainerSaves}. */
  Records.Container saveLater(Records.Container container) {
    saves.later(container);
    containers.put(container.id(), container);
    return container;
  }

  /** Drops the container's record, under its lock so that no change to it is in flight. */
  void forget(String id) {
    try (KeyedLocks.Held held = locks.hold(id)) {
      saves.remove(id);
      containers.remove(id);
    }
  }

  /** Whether the container has ended or is gone: nothing about its job will change any more. */
  boolean ended(String id) {
    Records.Container current = containers.get(id);
    return current == null || current.finish() != null;
  }

  /** The key of the cluster the container's job runs on: its login, or the configured cluster. */
  static String clusterKey(Records.Container container) {
    return Objects.requireNonNullElse(container.login(), Clusters.CONFIGURED);
  }

  static PodSandboxConfig podConfig(Records.Sandbox sandbox) {
    try {
      return PodSandboxConfig.parseFrom(sandbox.config());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored config of sandbox " + sandbox.id() + " is corrupt", e);
    }
  }

  static ContainerConfig containerConfig(Records.Container container) {
    try {
      return ContainerConfig.parseFrom(container.config());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored config of container " + container.id() + " is corrupt", e);
    }
  }

  @Override
  public void close() {
    saves.close();
  }
}
