package io.crigate.interlink.plugin;

import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ImageStatusRequest;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.api.cri.v1.StopContainerRequest;
import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.NotFound;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.RetrievedContainer;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An interLink plugin backed by one crigate {@link Backend}: a pod becomes a sandbox and its
 * containers. A pod the backend refuses (a flavor it does not know, a partition sbatch rejects) is
 * answered 200 on {@code /create} and reported terminated with the reason on {@code /status}, so
 * Kubernetes shows Failed with the cause instead of Pending forever.
 */
public final class CrigatePlugin implements PluginApi, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CrigatePlugin.class);
  static final String CREATE_FAILED = "CreateFailed";

  private final Backend backend;
  private final PluginSettings settings;
  private final PodRecords records;
  private final PodTranslator translator;
  private final VolumeFiles volumes;
  private final PodLauncher launcher;
  private final StatusReader statuses;
  private final CriLogReader logs;
  private final Clock clock;
  private final ScheduledExecutorService ticker;

  public CrigatePlugin(Backend backend, DurableStore store, PluginSettings settings, Clock clock) {
    this.backend = backend;
    this.settings = settings;
    this.records = new PodRecords(store);
    this.translator = new PodTranslator(settings.runtimeHandler(), settings.allocatable());
    this.volumes = new VolumeFiles(settings.volumeDir(), backend.workloadUser());
    this.launcher = new PodLauncher(backend, records);
    this.statuses = new StatusReader(backend);
    this.logs = new CriLogReader(settings.pollInterval());
    this.clock = clock;
    this.ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("interlink-launcher").factory());
    long interval = settings.pollInterval().toMillis();
    ticker.scheduleWithFixedDelay(this::advanceAll, 0, interval, TimeUnit.MILLISECONDS);
  }

  @Override
  public CreateStruct create(RetrievedPodData data) {
    if (data == null) {
      throw new BadRequest("body", "a RetrievedPodData object is required");
    }
    Pod pod = data.pod();
    PodTranslator.validate(pod);
    String uid = pod.getMetadata().getUid();
    synchronized (launcher.lock(uid)) {
      PodRecord known = records.get(uid).orElse(null);
      if (data.isVolumeRefresh()) {
        return refreshVolumes(known, data);
      }
      if (known != null) {
        return answer(known);
      }
      Map<String, Path> dirs = volumes.materialise(pod, data.containersOrEmpty());
      Path logDir = logDir(uid);
      PodPlan plan;
      try {
        plan = translator.plan(pod, data.containersOrEmpty(), dirs, logDir);
      } catch (RuntimeException e) {
        volumes.remove(uid);
        throw e;
      }
      PodRecord record = records.addIfAbsent(new PodRecord(uid, PodTranslator.namespace(pod), pod.getMetadata().getName(),
          null, plan.steps().stream().map(s -> new PodRecord.Entry(s.name(), s.init(), s.config().getImage().getImage(),
              null, null)).toList(), null, false, grace(pod)));
      try {
        createInBackend(record, plan, logDir);
      } catch (RuntimeException e) {
        LOG.info("pod {} could not be created: {}", uid, e.getMessage());
        boolean undone = tryUndo(records.get(uid).orElseThrow());
        if (undone && e instanceof CrigateException.Unavailable) {
          // the backend could not be asked and nothing is left behind: the create can simply be retried
          records.remove(uid);
          throw e;
        }
        record = records.update(uid, r -> new PodRecord(r.uid(), r.namespace(), r.name(), undone ? null : r.sandboxId(),
            r.containers(), new PodRecord.Failure(CREATE_FAILED, e.getMessage()), true, r.graceSeconds()));
        return answer(record);
      }
    }
    launcher.advance(uid);
    return answer(records.get(uid).orElseThrow());
  }

  /** A created pod's projected volumes sent again (fresh tokens): their files are rewritten in place. */
  private CreateStruct refreshVolumes(PodRecord known, RetrievedPodData data) {
    String uid = data.pod().getMetadata().getUid();
    if (known == null || known.failure() != null) {
      throw new NotFound("pod %s is not running here; a volume refresh creates nothing".formatted(uid));
    }
    volumes.refresh(data.pod(), data.containersOrEmpty());
    LOG.info("pod {}: projected volumes rewritten with what was sent again", uid);
    return answer(known);
  }

  private void createInBackend(PodRecord record, PodPlan plan, Path logDir) {
    String uid = record.uid();
    try {
      Files.createDirectories(logDir);
      for (PodPlan.Step step : plan.steps()) {
        Files.createDirectories(logDir.resolve(step.name()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    pullImages(plan);
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(plan.sandbox())
        .setRuntimeHandler(translator.runtimeHandler()).build()).getPodSandboxId();
    records.update(uid, r -> r.withSandbox(sandbox));
    for (int i = 0; i < plan.steps().size(); i++) {
      String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(sandbox)
          .setConfig(plan.steps().get(i).config()).setSandboxConfig(plan.sandbox()).build()).getContainerId();
      int index = i;
      records.update(uid, r -> r.withEntry(index, e -> e.withId(id)));
    }
  }

  private void pullImages(PodPlan plan) {
    Set<String> images = new LinkedHashSet<>();
    plan.steps().forEach(s -> images.add(s.config().getImage().getImage()));
    for (String image : images) {
      ImageSpec spec = ImageSpec.newBuilder().setImage(image).setRuntimeHandler(translator.runtimeHandler()).build();
      if (!backend.imageStatus(ImageStatusRequest.newBuilder().setImage(spec).build()).hasImage()) {
        backend.pullImage(PullImageRequest.newBuilder().setImage(spec).build());
      }
    }
  }

  @Override
  public String delete(Pod pod) {
    if (pod == null || pod.getMetadata() == null || pod.getMetadata().getUid() == null) {
      throw new BadRequest("metadata.uid", "is required");
    }
    String uid = pod.getMetadata().getUid();
    synchronized (launcher.lock(uid)) {
      PodRecord record = records.get(uid).orElse(null);
      if (record == null) {
        return "pod %s is not known to this plugin; nothing to delete".formatted(uid);
      }
      // stop the launcher first, so no container of the pod starts while it is being cancelled
      records.update(uid, PodRecord::asLaunched);
      stopGracefully(record);
      undo(record);
      records.remove(uid);
    }
    launcher.forget(uid);
    return "pod %s deleted".formatted(uid);
  }

  /**
   * SIGTERM, then SIGKILL after the pod's grace period, for every container at once. A stop that
   * fails is only logged: removing the sandbox, which follows, ends every container regardless.
   */
  private void stopGracefully(PodRecord record) {
    List<Thread> stops = new ArrayList<>();
    for (PodRecord.Entry entry : record.containers()) {
      if (entry.id() != null) {
        stops.add(Thread.ofVirtual().start(() -> {
          try {
            backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(entry.id())
                .setTimeout(record.graceSeconds()).build());
          } catch (CrigateException.NotFound e) {
            LOG.debug("container {} of pod {} already gone", entry.id(), record.uid());
          } catch (RuntimeException e) {
            LOG.warn("pod {}: graceful stop of container {} failed, removing its sandbox ends it: {}", record.uid(),
                entry.name(), e.getMessage());
          }
        }));
      }
    }
    for (Thread stop : stops) {
      try {
        stop.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CrigateException.Unavailable("interrupted while stopping pod " + record.uid());
      }
    }
  }

  private boolean tryUndo(PodRecord record) {
    try {
      undo(record);
      return true;
    } catch (RuntimeException e) {
      LOG.warn("pod {}: sandbox {} not removed yet ({}); /delete removes it", record.uid(), record.sandboxId(),
          e.getMessage());
      return false;
    }
  }

  /** Removes the sandbox (and with it every container and job) and the pod's files. */
  private void undo(PodRecord record) {
    if (record.sandboxId() != null) {
      try {
        backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(record.sandboxId()).build());
      } catch (CrigateException.NotFound e) {
        LOG.debug("sandbox {} already gone", record.sandboxId());
      }
    }
    volumes.remove(record.uid());
    VolumeFiles.deleteTree(logDir(record.uid()));
  }

  @Override
  public List<PodStatusReport> status(List<Pod> pods) {
    List<PodStatusReport> reports = new ArrayList<>(pods.size());
    for (int i = 0; i < pods.size(); i++) {
      Pod pod = pods.get(i);
      if (pod == null || pod.getMetadata() == null || pod.getMetadata().getUid() == null) {
        throw new BadRequest("[%d].metadata.uid".formatted(i), "is required");
      }
      PodRecord record = records.get(pod.getMetadata().getUid()).orElse(null);
      reports.add(record == null ? StatusReader.unknown(pod) : statuses.report(record));
    }
    return reports;
  }

  @Override
  public void logs(LogRequest request, OutputStream out) throws IOException {
    request.validated();
    if (request.optsOrDefault().previous()) {
      throw new BadRequest("Opts.Previous", "containers are never restarted here, so there is no previous log");
    }
    PodRecord record = records.get(request.podUid())
        .orElseThrow(() -> new NotFound("pod %s is not known to this plugin".formatted(request.podUid())));
    PodRecord.Entry entry = record.container(request.containerName());
    if (entry == null) {
      throw new NotFound("pod %s has no container %s".formatted(request.podUid(), request.containerName()));
    }
    Path file = logDir(record.uid()).resolve(entry.name()).resolve("0.log");
    try {
      logs.copy(file, request.optsOrDefault(), clock.instant(), () -> ended(record.uid(), entry.name()), out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A followed log ends when its container has ended or could never start, or the pod was deleted. */
  private boolean ended(String uid, String container) {
    PodRecord record = records.get(uid).orElse(null);
    if (record == null) {
      return true;
    }
    PodRecord.Entry entry = record.container(container);
    if (entry.failure() != null || record.failure() != null || entry.id() == null) {
      return entry.failure() != null || record.failure() != null;
    }
    try {
      return backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(entry.id()).build())
          .getStatus().getState() == ContainerState.CONTAINER_EXITED;
    } catch (CrigateException.NotFound e) {
      return true;
    }
  }

  @Override
  public PingResponse ping() {
    return PingResponse.ok(settings.resources(), settings.taints()).withVolumeRefresh();
  }

  private void advanceAll() {
    for (PodRecord record : records.all()) {
      if (!record.launched()) {
        try {
          launcher.advance(record.uid());
        } catch (RuntimeException e) {
          LOG.warn("pod {}: could not move on, retrying in {}: {}", record.uid(), settings.pollInterval(), e.getMessage());
        }
      }
    }
  }

  private Path logDir(String uid) {
    return settings.logDir().resolve(uid);
  }

  private static CreateStruct answer(PodRecord record) {
    return new CreateStruct(record.uid(), record.sandboxId() == null ? "" : record.sandboxId());
  }

  private static long grace(Pod pod) {
    Long grace = pod.getSpec().getTerminationGracePeriodSeconds();
    return grace == null ? 30 : grace;
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
