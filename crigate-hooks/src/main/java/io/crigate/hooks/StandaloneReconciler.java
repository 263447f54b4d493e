package io.crigate.hooks;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.ContainerEventType;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.GetEventsRequest;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.spi.RuntimeBackend;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.cri.CriTranslation;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standalone mode: Koordinator's hooks applied after the fact, asynchronously. Containers are found
 * through the runtime's GetContainerEvents stream, and by listing on a {@link ListSchedule} while no
 * stream is available (containerd before 1.7 has none) plus every {@code resync} regardless, which
 * also restores values someone changed by hand. Each new or resynced container runs through the
 * adjustment engine as if it were being created ({@link PluginChain#runPodSandbox},
 * {@link PluginChain#createContainer}); the answer is applied with UpdateContainerResources, and
 * what that call cannot carry (the OOM score, pod-level cgroup values) by writing host files.
 * Env cannot reach a process that already runs, nor a mount a running container: such changes are
 * logged, once per container.
 */
public final class StandaloneReconciler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StandaloneReconciler.class);

  /** Reports each container once its settings are in force, with the delay since it started. */
  @FunctionalInterface
  public interface Listener {
    void applied(String containerId, Adjustment adjustment, Duration sinceStart);
  }

  private final RuntimeBackend runtime;
  private final PluginChain engine;
  private final HostCgroups host;
  private final ListSchedule schedule;
  private final Duration resync;
  private final Clock clock;
  private final Listener listener;

  private final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
  private final Set<String> queued = ConcurrentHashMap.newKeySet();
  /**
   * What was last applied to each live container, and to which process; a resync re-applies only
   * what differs, and a container seen before it started is reapplied once it has a process (the
   * OOM score needs one).
   */
  private record Applied(Adjustment adjustment, long pid, boolean running) {}

  private final Map<String, Applied> applied = new ConcurrentHashMap<>();
  private final AtomicBoolean eventsLive = new AtomicBoolean();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().name("hooks-reconcile-timer").daemon().factory());
  private final Context.CancellableContext eventsContext = Context.current().withCancellation();
  private volatile boolean closed;
  private volatile boolean toldNoEvents;
  private Thread worker;
  private long lastFullResyncNanos;
  /** When a list last found a container it had not seen: the schedule lists faster for a while after. */
  private volatile long lastNewNanos = System.nanoTime() - Duration.ofDays(1).toNanos();
  /** How long the last list and the reconciles it queued took, for the schedule. */
  private volatile long lastWorkNanos;
  /** When the list whose reconciles are still queued began; 0 when none are. */
  private volatile long pendingListNanos;
  private volatile boolean firstPassDone;

  public StandaloneReconciler(RuntimeBackend runtime, PluginChain engine, HostCgroups host, ListSchedule schedule,
      Duration resync, Clock clock, Listener listener) {
    this.runtime = runtime;
    this.engine = engine;
    this.host = host;
    this.schedule = schedule;
    this.resync = resync;
    this.clock = clock;
    this.listener = listener;
  }

  public void start() {
    worker = Thread.ofVirtual().name("hooks-reconcile").start(this::work);
    subscribe();
    timer.execute(this::tick);
  }

  /** Forgets what was applied so the next pass re-applies everything: after a live configuration change. */
  public void resyncAll() {
    applied.clear();
    timer.execute(() -> list(true));
  }

  /** Lists when due and schedules the next tick from this one's start, so the list's own time counts. */
  private void tick() {
    long began = System.nanoTime();
    try {
      boolean full = began - lastFullResyncNanos >= resync.toNanos();
      if (full || !eventsLive.get()) {
        list(full);
      }
    } finally {
      // with events, ticks only look for a due resync
      Duration interval = eventsLive.get() ? schedule.idle()
          : schedule.interval(Duration.ofNanos(began - lastNewNanos), Duration.ofNanos(lastWorkNanos));
      long wait = began + interval.toNanos() - System.nanoTime();
      try {
        timer.schedule(this::tick, Math.max(0, wait), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // closed
      }
    }
  }

  private void list(boolean full) {
    long began = System.nanoTime();
    try {
      var containers = runtime.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList();
      Map<String, ContainerState> live = containers.stream()
          .filter(c -> c.getState() == ContainerState.CONTAINER_RUNNING || c.getState() == ContainerState.CONTAINER_CREATED)
          .collect(Collectors.toMap(c -> c.getId(), c -> c.getState(), (a, b) -> a));
      applied.keySet().retainAll(live.keySet());
      live.forEach((id, state) -> {
        Applied last = applied.get(id);
        // a container first seen before it started gets its process-level settings once it runs
        if (last == null) {
          lastNewNanos = began;
        }
        if (full || last == null || (!last.running() && state == ContainerState.CONTAINER_RUNNING)) {
          enqueue(id);
        }
      });
      if (queued.isEmpty()) {
        listWorkDone(began);
      } else {
        pendingListNanos = began;
      }
      if (full) {
        lastFullResyncNanos = System.nanoTime();
      }
    } catch (RuntimeException e) {
      log.warn("standalone hooks: cannot list containers: {}", e.getMessage());
    }
  }

  private void subscribe() {
    eventsContext.run(() -> runtime.getContainerEvents(GetEventsRequest.getDefaultInstance(), new StreamObserver<>() {
      @Override
      public void onNext(ContainerEventResponse event) {
        eventsLive.set(true);
        if (event.getContainerEventType() == ContainerEventType.CONTAINER_CREATED_EVENT
            || event.getContainerEventType() == ContainerEventType.CONTAINER_STARTED_EVENT) {
          enqueue(event.getContainerId());
        } else if (event.getContainerEventType() == ContainerEventType.CONTAINER_DELETED_EVENT) {
          applied.remove(event.getContainerId());
        }
      }

      @Override
      public void onError(Throwable t) {
        streamEnded("failed: " + t.getMessage());
      }

      @Override
      public void onCompleted() {
        streamEnded("ended");
      }
    }));
  }

  /** Listing takes over at once; the stream is retried after a resync period. */
  private void streamEnded(String how) {
    boolean wasLive = eventsLive.getAndSet(false);
    if (closed) {
      return;
    }
    if (wasLive) {
      log.warn("standalone hooks: container event stream {}; listing ({}) until it is back", how, schedule);
    } else if (!toldNoEvents) {
      toldNoEvents = true;
      log.info("standalone hooks: runtime offers no container events ({}); listing ({}), asking again every {}",
          how, schedule, resync);
    }
    timer.schedule(this::subscribe, resync.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A list and the reconciles it queued are done: their time goes to the schedule; the first is reported. */
  private void listWorkDone(long listStartNanos) {
    lastWorkNanos = System.nanoTime() - listStartNanos;
    if (!firstPassDone) {
      firstPassDone = true;
      log.info("standalone hooks: first pass done, {} containers in force after {} ms", applied.size(),
          Duration.ofNanos(lastWorkNanos).toMillis());
    }
  }

  private void enqueue(String id) {
    if (queued.add(id)) {
      queue.add(id);
    }
  }

  private void work() {
    while (!closed) {
      String id;
      try {
        id = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      queued.remove(id);
      try {
        reconcile(id);
      } catch (RuntimeException e) {
        log.warn("standalone hooks: container {} not reconciled: {}", id, e.getMessage());
      }
      long listed = pendingListNanos;
      if (listed != 0 && queued.isEmpty()) {
        pendingListNanos = 0;
        listWorkDone(listed);
      }
    }
  }

  /** Runs the engine for one container and applies the answer; package-private for tests. */
  void reconcile(String id) {
    RuntimeView view = RuntimeView.read(runtime, id);
    Adjustment pod = engine.runPodSandbox(view.pod()).adjustment();
    Adjustment container = engine.createContainer(view.pod(), view.container()).adjustment();
    Applied previous = applied.get(id);
    Applied now = new Applied(container, view.pid(), view.running());
    if (now.equals(previous)) {
      return;
    }
    if (!pod.resources().isEmpty() && !view.pod().cgroupParent().isEmpty()) {
      host.write(view.pod().cgroupParent(), pod.resources());
    }
    if (!container.resources().isEmpty()) {
      applyResources(view, container);
    }
    container.oomScoreAdj().ifPresent(oom -> {
      if (view.pid() > 0) {
        host.writeOomScoreAdj(view.pid(), oom);
      }
    });
    if (previous == null) {
      tellWhatCannotApply(id, view.container().name(), container);
    }
    applied.put(id, now);
    long sinceStart = clock.instant().toEpochMilli() * 1_000_000 - view.startedAtNanos();
    listener.applied(id, container, Duration.ofNanos(Math.max(0, sinceStart)));
  }

  /** Env and mounts reach a container only at its creation: said once per container, when it is first reconciled. */
  private static void tellWhatCannotApply(String id, String name, Adjustment container) {
    if (!container.env().isEmpty()) {
      log.info("standalone hooks: container {} ({}) runs without env {}: a started process cannot take new "
          + "env; use proxy or NRI mode for it", id, name, container.env().keySet());
    }
    if (!container.mounts().isEmpty()) {
      log.info("standalone hooks: container {} ({}) runs without mounts {}: a running container cannot get new "
          + "mounts; use proxy or NRI mode for it", id, name, container.mounts().stream()
              .map(m -> m.hostPath() + ":" + m.containerPath() + (m.readOnly() ? ":ro" : "")).toList());
    }
  }

  /** UpdateContainerResources first; a runtime that refuses it gets the cgroup files written instead. */
  private void applyResources(RuntimeView view, Adjustment container) {
    try {
      runtime.updateContainerResources(CriTranslation.update(ContainerUpdate.of(view.container().id(),
          container.resources())));
    } catch (RuntimeException e) {
      if (view.pid() <= 0) {
        throw e;
      }
      log.debug("UpdateContainerResources refused for {} ({}); writing cgroup files", view.container().id(), e.getMessage());
      host.writeForProcess(view.pid(), container.resources());
    }
  }

  @Override
  public void close() {
    closed = true;
    eventsContext.cancel(null);
    timer.shutdownNow();
    if (worker != null) {
      worker.interrupt();
    }
  }
}
