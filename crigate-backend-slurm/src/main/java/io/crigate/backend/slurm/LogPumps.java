package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One {@link LogPump} per started container with a CRI log path: job output files into the kubelet's log. */
final class LogPumps implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LogPumps.class);

  private final Inventory inventory;
  private final SandboxDirectory dirs;
  private final Map<String, LogPump> pumps = new ConcurrentHashMap<>();

  LogPumps(Inventory inventory, SandboxDirectory dirs) {
    this.inventory = inventory;
    this.dirs = dirs;
  }

  /** Starts copying the container's job output into its CRI log, from the last checkpoint. */
  void start(Records.Container container) {
    Optional<Path> logPath = logPath(container);
    if (logPath.isEmpty()) {
      return;
    }
    String id = container.id();
    try {
      LogPump pump = new LogPump(id, dirs.stdout(container.sandboxId(), id), dirs.stderr(container.sandboxId(), id),
          new CriLogWriter(logPath.get(), inventory.clock()), inventory.records().log(id),
          () -> inventory.ended(id),
          offsets -> {
            if (inventory.findContainer(id).isPresent()) {
              inventory.records().putLog(id, offsets);
            }
          });
      pumps.put(id, pump);
      pump.start();
    } catch (IOException e) {
      LOG.warn("container {}: cannot open log {}: {}", id, logPath.get(), e.getMessage());
    }
  }

  /** After a restart: a log that was not copied to its end continues where its checkpoint says. */
  void resume(Records.Container container) {
    if (!inventory.records().log(container.id()).done()) {
      start(container);
    }
  }

  /** ReopenContainerLog: later output goes to a fresh file at the log path (the kubelet rotated the old one). */
  void reopen(Records.Container container) {
    LogPump pump = pumps.get(container.id());
    if (pump == null || container.finish() != null && inventory.records().log(container.id()).done()) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    try {
      pump.reopen();
    } catch (IOException e) {
      throw new CrigateException.Unavailable("container %s: cannot reopen its log: %s"
          .formatted(container.id(), e.getMessage()), e);
    }
  }

  void stop(String containerId) {
    LogPump pump = pumps.remove(containerId);
    if (pump != null) {
      pump.close();
    }
  }

  /** Where the kubelet wants the container's log, if the pod and the container both name one. */
  Optional<Path> logPath(Records.Container container) {
    String relative = Inventory.containerConfig(container).getLogPath();
    return inventory.findSandbox(container.sandboxId()).map(Inventory::podConfig)
        .filter(pod -> !relative.isEmpty() && !pod.getLogDirectory().isEmpty())
        .map(pod -> Path.of(pod.getLogDirectory()).resolve(relative));
  }

  @Override
  public void close() {
    pumps.values().forEach(LogPump::close);
  }
}
