package io.crigate.interlink.plugin;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatus;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.StartContainerRequest;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a pod's containers in Kubernetes order: each init container after the previous one exited
 * 0, then every container. {@link #advance} does whatever can be done now and returns; one timer
 * calls it for pods still waiting on an init container, so the cost does not grow a thread per pod.
 */
final class PodLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(PodLauncher.class);
  static final String SUBMIT_FAILED = "SubmitFailed";

  private final Backend backend;
  private final PodRecords records;

  PodLauncher(Backend backend, PodRecords records) {
    this.backend = backend;
    this.records = records;
  }

  /** Moves the pod on as far as it can go without waiting. Safe to call repeatedly and after a restart. */
  void advance(String uid) {
    synchronized (lock(uid)) {
      PodRecord pod = records.get(uid).orElse(null);
      if (pod == null || pod.launched()) {
        return;
      }
      for (int i = 0; i < pod.containers().size(); i++) {
        PodRecord.Entry entry = pod.containers().get(i);
        if (entry.failure() != null) {
          records.update(uid, PodRecord::asLaunched);
          return;
        }
        ContainerStatus status = status(entry.id());
        if (status.getState() == ContainerState.CONTAINER_CREATED) {
          if (!start(uid, i, entry)) {
            records.update(uid, PodRecord::asLaunched);
            return;
          }
          if (entry.init()) {
            return;
          }
        } else if (entry.init() && status.getState() != ContainerState.CONTAINER_EXITED) {
          return;
        } else if (entry.init() && status.getExitCode() != 0) {
          // restartPolicy is not replayed: an init container that failed fails the pod (Never).
          records.update(uid, PodRecord::asLaunched);
          return;
        }
      }
      records.update(uid, PodRecord::asLaunched);
    }
  }

  private boolean start(String uid, int index, PodRecord.Entry entry) {
    try {
      backend.startContainer(StartContainerRequest.newBuilder().setContainerId(entry.id()).build());
      return true;
    } catch (CrigateException.Unavailable e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.info("pod {} container {} was not submitted: {}", uid, entry.name(), e.getMessage());
      records.update(uid, pod -> pod.withEntry(index, c -> c.failed(new PodRecord.Failure(SUBMIT_FAILED, e.getMessage()))));
      return false;
    }
  }

  private ContainerStatus status(String id) {
    return backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build()).getStatus();
  }

  /** Per-pod lock objects: interned strings of the uid would be shared with unrelated code. */
  private final java.util.concurrent.ConcurrentHashMap<String, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

  Object lock(String uid) {
    return locks.computeIfAbsent(uid, k -> new Object());
  }

  void forget(String uid) {
    locks.remove(uid);
  }
}
