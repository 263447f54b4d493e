package io.crigate.backend.slurm;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Streams;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each container as one Slurm batch job. A pod is a directory on the cluster's shared work
 * dir; CreateContainer writes the job script there, StartContainer submits it. Status comes from
 * the {@link JobPoller}'s cache, logs from a {@link LogPump} per container.
 */
final class SlurmBackend implements Backend {

  private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);
  private static final Duration STOP_SETTLE = Duration.ofSeconds(30);
  private static final Duration STOP_POLL = Duration.ofMillis(250);

  private final String name;
  private final Clusters clusters;
  private final KnownLoginHosts loginHosts;
  private final RecordStore records;
  private final ContainerSaves saves;
  private final ImageCatalog images;
  private final JobPlanner planner;
  private final ImageRunner runner;
  private final SandboxDirectory dirs;
  private final SealedEnv sealedEnv;
  private final Clock clock;
  private final Map<String, Records.Sandbox> sandboxes = new ConcurrentHashMap<>();
  private final Map<String, Records.Container> containers = new ConcurrentHashMap<>();
  private final Map<JobKey, String> containerByJob = new ConcurrentHashMap<>();
  private final Map<String, LogPump> pumps = new ConcurrentHashMap<>();
  /**
   * Jobs planned at CreateContainer, kept until StartContainer so the start, which the kubelet
   * issues right after, neither parses the configs nor plans again. A restart loses them; start
   * then plans from the stored configs.
   */
  private final Map<String, JobSpec> prepared = new ConcurrentHashMap<>();
  private final KeyedLocks locks = new KeyedLocks();
  /**
   * Containers without a stored job id that may nevertheless have one: after a restart every
   * unstarted container is one (the crash may have hit between sbatch and storing the id; records
   * of older versions carry no submitting marker). Cleared by looking the job up by name.
   */
  private final Set<String> unreconciled = ConcurrentHashMap.newKeySet();

  private volatile Streaming streaming = new Streaming(Streams.NONE, new SlurmStreams(this::runningJob, null));

  /** Runs between sbatch and storing the job id; tests use it to simulate a crash right there. */
  volatile Runnable afterSubmit = () -> {};

  /** Job ids are unique per cluster only, and a backend may talk to several (container logins). */
  private record JobKey(String cluster, long jobId) {}

  SlurmBackend(String name, SlurmSettings settings, SlurmClient configured,
      Function<ClusterLogin, SlurmClient> connect, RecordStore records, LoginVault vault, Clock clock) {
    this.name = name;
    this.records = records;
    this.saves = new ContainerSaves(records);
    this.clock = clock;
    this.dirs = new SandboxDirectory(settings.workDirPath());
    this.sealedEnv = new SealedEnv(vault);
    this.loginHosts = settings.containerLogins() == null ? null
        : new KnownLoginHosts(settings.containerLogins().knownHosts());
    this.runner = ImageRunner.parse(name, settings.runner());
    this.planner = new JobPlanner(settings, runner);
    this.images = new ImageCatalog(runner, configured, records, dirs.images(), clock);
    sandboxes.putAll(records.sandboxes());
    containers.putAll(records.containers());
    Map<String, Set<String>> containersByLogin = containers.values().stream().filter(c -> c.login() != null)
        .collect(Collectors.groupingBy(Records.Container::login,
            Collectors.mapping(Records.Container::id, Collectors.toSet())));
    this.clusters = new Clusters(configured, connect, records, vault, containersByLogin, settings.pollInterval(),
        this::settled);
    containers.values().forEach(this::resume);
    if (!unreconciled.isEmpty()) {
      Thread.ofVirtual().name("slurm-reconcile").start(this::reconcileAll);
    }
  }

  /** One batched lookup by job name per cluster for every container a restart left without a job id. */
  private void reconcileAll() {
    Map<String, List<String>> idsByLogin = unreconciled.stream().map(containers::get).filter(Objects::nonNull)
        .collect(Collectors.groupingBy(this::clusterKey, Collectors.mapping(Records.Container::id, Collectors.toList())));
    idsByLogin.forEach((login, ids) -> {
      try {
        SlurmClient client = clusters.of(login).client();
        Map<String, Long> jobs = client.findByNames(ids.stream().map(id -> SlurmClient.NAME_PREFIX + id).toList());
        for (String id : ids) {
          try (KeyedLocks.Held held = locks.hold(id)) {
            Records.Container container = containers.get(id);
            if (container != null && unreconciled.remove(id)) {
              settleSubmission(container, jobs);
            }
          }
        }
      } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
        LOG.warn("{} submissions on {} not reconciled yet, each is retried on its next use: {}", ids.size(), login,
            e.getMessage());
      }
    });
  }

  /** After a restart: follow jobs still running, and settle submissions a crash interrupted. */
  private void resume(Records.Container container) {
    if (container.started()) {
      containerByJob.put(new JobKey(clusterKey(container), container.jobId()), container.id());
      if (container.finish() == null) {
        try {
          cluster(container).poller().track(container.jobId());
        } catch (CrigateException.Unavailable e) {
          LOG.warn("container {}: job {} is not followed: {}", container.id(), container.jobId(), e.getMessage());
        }
      }
      if (!records.log(container.id()).done()) {
        startLog(container);
      }
    } else {
      unreconciled.add(container.id());
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public VersionResponse version(VersionRequest request) {
    return VersionResponse.newBuilder().setVersion("0.1.0").setRuntimeName("crigate-slurm")
        .setRuntimeVersion("0.1.0").setRuntimeApiVersion("v1").build();
  }

  @Override
  public StatusResponse status(StatusRequest request) {
    RuntimeCondition.Builder runtime = RuntimeCondition.newBuilder().setType("RuntimeReady").setStatus(true);
    try {
      clusters.configured().poller().state(0);
    } catch (CrigateException.Unavailable e) {
      runtime.setStatus(false).setReason("SlurmUnreachable").setMessage(e.getMessage());
    }
    RuntimeCondition network = RuntimeCondition.newBuilder().setType("NetworkReady").setStatus(true).build();
    return StatusResponse.newBuilder()
        .setStatus(RuntimeStatus.newBuilder().addConditions(runtime).addConditions(network)).build();
  }

  // ---- pods

  @Override
  public RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request) {
    if (!request.getConfig().hasMetadata()) {
      throw new CrigateException.InvalidArgument("RunPodSandbox needs config.metadata");
    }
    String id = Ids.next();
    SandboxDirectory.create(dirs.pod(id));
    Records.Sandbox sandbox = new Records.Sandbox(id, request.getConfig().toByteArray(), nowNanos(), true);
    records.put(sandbox);
    sandboxes.put(id, sandbox);
    return RunPodSandboxResponse.newBuilder().setPodSandboxId(id).build();
  }

  @Override
  public StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    String id = request.getPodSandboxId();
    stopJobsOf(id);
    Records.Sandbox sandbox = sandboxes.get(id);
    if (sandbox != null && sandbox.ready()) {
      Records.Sandbox stopped = sandbox.notReady();
      records.put(stopped);
      sandboxes.put(id, stopped);
    }
    return StopPodSandboxResponse.getDefaultInstance();
  }

  /** One scancel per cluster for all of the pod's jobs, then one wait: a pod of 200 jobs must not take 200 round trips. */
  private void stopJobsOf(String id) {
    List<Records.Container> live = containersOf(id).stream().map(c -> reconcile(c.id()))
        .filter(c -> c.started() && c.finish() == null).map(c -> save(c.stopping())).toList();
    live.forEach(c -> removeRunnerContainer(cluster(c), c));
    live.stream().collect(Collectors.groupingBy(this::clusterKey)).values().forEach(sameCluster ->
        cluster(sameCluster.getFirst()).client().cancel(sameCluster.stream().map(Records.Container::jobId).toList(), ""));
    live.forEach(this::awaitSettled);
  }

  @Override
  public RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    String id = request.getPodSandboxId();
    stopJobsOf(id);
    for (Records.Container container : containersOf(id)) {
      remove(container.id());
    }
    if (sandboxes.containsKey(id)) {
      SandboxDirectory.delete(dirs.pod(id));
      records.removeSandbox(id);
      sandboxes.remove(id);
    }
    return RemovePodSandboxResponse.getDefaultInstance();
  }

  @Override
  public PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request) {
    Records.Sandbox sandbox = sandbox(request.getPodSandboxId());
    PodSandboxConfig config = podConfig(sandbox);
    PodSandboxStatus status = PodSandboxStatus.newBuilder()
        .setId(sandbox.id())
        .setMetadata(config.getMetadata())
        .setState(sandbox.ready() ? PodSandboxState.SANDBOX_READY : PodSandboxState.SANDBOX_NOTREADY)
        .setCreatedAt(sandbox.createdAt())
        .setNetwork(PodSandboxNetworkStatus.getDefaultInstance())
        .setLinux(LinuxPodSandboxStatus.newBuilder().setNamespaces(Namespace.newBuilder()
            .setOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE).setPid(NamespaceMode.NODE)
                .setIpc(NamespaceMode.NODE))))
        .putAllLabels(config.getLabelsMap())
        .putAllAnnotations(config.getAnnotationsMap())
        .build();
    return PodSandboxStatusResponse.newBuilder().setStatus(status).build();
  }

  @Override
  public ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request) {
    ListPodSandboxResponse.Builder response = ListPodSandboxResponse.newBuilder();
    for (Records.Sandbox sandbox : sandboxes.values()) {
      PodSandboxConfig config = podConfig(sandbox);
      response.addItems(PodSandbox.newBuilder().setId(sandbox.id()).setMetadata(config.getMetadata())
          .setState(sandbox.ready() ? PodSandboxState.SANDBOX_READY : PodSandboxState.SANDBOX_NOTREADY)
          .setCreatedAt(sandbox.createdAt()).putAllLabels(config.getLabelsMap())
          .putAllAnnotations(config.getAnnotationsMap()));
    }
    return response.build();
  }

  // ---- containers

  @Override
  public CreateContainerResponse createContainer(CreateContainerRequest request) {
    Records.Sandbox sandbox = sandbox(request.getPodSandboxId());
    if (!sandbox.ready()) {
      throw new CrigateException.FailedPrecondition("sandbox %s is stopped".formatted(sandbox.id()));
    }
    ContainerConfig config = request.getConfig();
    if (!config.hasMetadata()) {
      throw new CrigateException.InvalidArgument("CreateContainer needs config.metadata");
    }
    String id = Ids.next();
    Path dir = dirs.container(sandbox.id(), id);
    // Planning validates everything the pod supplied before anything is written.
    JobSpec spec = jobSpec(sandbox, config, id);
    Optional<ClusterLogin> login = admitLogin(config, id);
    Records.Container container = new Records.Container(id, sandbox.id(),
        sealedEnv.seal(withoutPassword(config), id).toByteArray(),
        nowNanos(), 0, false, 0, false, null, login.map(ClusterLogin::key).orElse(null));
    try {
      SandboxDirectory.create(dir);
      login.ifPresent(l -> {
        if (!SandboxDirectory.giveTo(dir, l.user())) {
          LOG.info("container {}: user {} is unknown on this node; {} keeps its owner", id, l.user(), dir);
        }
      });
      saves.now(container);
    } catch (RuntimeException e) {
      // nothing half-made stays behind: the kubelet retries CreateContainer with a fresh id
      SandboxDirectory.delete(dir);
      login.ifPresent(l -> clusters.release(l.key(), id));
      throw e;
    }
    containers.put(id, container);
    prepared.put(id, spec);
    return CreateContainerResponse.newBuilder().setContainerId(id).build();
  }

  /** The job a container becomes; planning validates everything the pod supplied. */
  private JobSpec jobSpec(Records.Sandbox sandbox, ContainerConfig config, String id) {
    Path dir = dirs.container(sandbox.id(), id);
    JobPlan plan = planner.plan(config, podConfig(sandbox), id, dir.toString());
    return new JobSpec(SlurmClient.NAME_PREFIX + id, id, dir.toString(), dir.resolve("stdout").toString(),
        dir.resolve("stderr").toString(), JobScript.render(plan, id, sandbox.id()), plan.options(), plan.submitEnv());
  }

  /** The container's own cluster login, checked and connected, or empty for the configured cluster. */
  private Optional<ClusterLogin> admitLogin(ContainerConfig config, String id) {
    String container = config.getMetadata().getName();
    Optional<ClusterLogin> login = ClusterLogin.fromEnv(config, container);
    login.ifPresent(l -> {
      if (loginHosts == null) {
        throw new CrigateException.InvalidArgument(("container %s sets %s, but slurm backend %s does not accept "
            + "per-container cluster logins: set containerLogins.knownHostsFile in its settings, or remove the "
            + "variables").formatted(container, ClusterLogin.VARIABLES, name));
      }
      loginHosts.check(l, container);
      clusters.admit(l, id);
    });
    return login;
  }

  /** The stored config keeps the login's user and host but never its password (the vault holds that). */
  private static ContainerConfig withoutPassword(ContainerConfig config) {
    if (config.getEnvsList().stream().noneMatch(kv -> kv.getKey().equals(ClusterLogin.PASSWORD))) {
      return config;
    }
    ContainerConfig.Builder stored = config.toBuilder().clearEnvs();
    config.getEnvsList().stream().filter(kv -> !kv.getKey().equals(ClusterLogin.PASSWORD)).forEach(stored::addEnvs);
    return stored.build();
  }

  @Override
  public StartContainerResponse startContainer(StartContainerRequest request) {
    String id = request.getContainerId();
    try (KeyedLocks.Held held = locks.hold(id)) {
      Records.Container container = reconcile(id);
      if (container.started()) {
        throw new CrigateException.FailedPrecondition("container %s already started as slurm job %d"
            .formatted(id, container.jobId()));
      }
      if (container.finish() != null) {
        throw new CrigateException.FailedPrecondition("container %s has exited (%s): %s"
            .formatted(id, container.finish().reason(), container.finish().message()));
      }
      JobSpec prepared = this.prepared.remove(id);
      JobSpec spec = prepared != null ? prepared
          : jobSpec(sandbox(container.sandboxId()), sealedEnv.open(containerConfig(container), id), id);
      long jobId;
      Clusters.Cluster cluster = cluster(container);
      cluster.poller().submitting();
      // On disk before sbatch: after a crash, a job Slurm no longer knows by name (purged from
      // accounting, or slurmrestd, which lists live jobs only) is never submitted a second time.
      Records.Container marked = save(container.submitting(true));
      try {
        jobId = cluster.client().submit(spec);
      } catch (CrigateException.Unavailable e) {
        // sbatch may have been accepted before the connection broke: the marker stays, and the
        // next attempt looks the job up by name before anything else.
        throw e;
      } catch (RuntimeException e) {
        save(container.submitting(false)); // sbatch answered and refused: nothing was submitted
        throw e;
      }
      afterSubmit.run();
      Records.Container started = saveLater(marked.submitted(jobId, nowNanos()));
      containerByJob.put(new JobKey(cluster.key(), jobId), id);
      cluster.poller().track(jobId);
      startLog(started);
      return StartContainerResponse.getDefaultInstance();
    }
  }

  /**
   * Settles a submission that a crash or a lost connection interrupted: if Slurm accepted a job
   * with this container's name, adopt it; otherwise the container was never started.
   */
  Records.Container reconcile(String id) {
    try (KeyedLocks.Held held = locks.hold(id)) {
      Records.Container container = container(id);
      if (container.started() || !container.submitting() && !unreconciled.contains(id)) {
        return container;
      }
      Records.Container settled = settleSubmission(container,
          cluster(container).client().findByNames(List.of(SlurmClient.NAME_PREFIX + id)));
      unreconciled.remove(id);
      return settled;
    }
  }

  /**
   * Settles a possibly interrupted submission with what a lookup by job name found. A container
   * marked as submitting whose job Slurm does not know may have run already (and been purged): it
   * is reported exited with reason Unknown, never submitted again. One without the marker never
   * reached sbatch.
   */
  private Records.Container settleSubmission(Records.Container container, Map<String, Long> jobsByName) {
    Long job = jobsByName.get(SlurmClient.NAME_PREFIX + container.id());
    if (job == null) {
      if (!container.submitting()) {
        return container;
      }
      LOG.warn("container {}: sbatch was called but Slurm knows no job {}{}; reported as exited, reason {}",
          container.id(), SlurmClient.NAME_PREFIX, container.id(), JobOutcome.UNKNOWN);
      long now = nowNanos();
      return save(container.submitting(false).finished(new Records.Finish(JobOutcome.UNKNOWN, JobOutcome.UNKNOWN_EXIT_CODE,
          "sbatch was called, but Slurm knows no job named %s%s: it may have run and been purged from accounting, "
              .formatted(SlurmClient.NAME_PREFIX, container.id()) + "so it is not submitted again", now, now)));
    }
    LOG.info("container {}: adopted slurm job {} submitted before an interruption", container.id(), job);
    Records.Container adopted = save(container.submitted(job, nowNanos()));
    containerByJob.put(new JobKey(clusterKey(container), job), container.id());
    cluster(container).poller().track(job);
    startLog(adopted);
    return adopted;
  }

  @Override
  public StopContainerResponse stopContainer(StopContainerRequest request) {
    container(request.getContainerId());
    stop(request.getContainerId(), request.getTimeout());
    return StopContainerResponse.getDefaultInstance();
  }

  /**
   * SIGTERM to every process of the job, then after {@code timeoutSeconds} SIGKILL and scancel;
   * returns once the job has settled, so the kubelet never sees it running after a stop.
   */
  private void stop(String id, long timeoutSeconds) {
    Records.Container container = reconcile(id);
    if (!container.started() || container.finish() != null) {
      return;
    }
    container = save(container.stopping());
    long jobId = container.jobId();
    Clusters.Cluster cluster = cluster(container);
    boolean queued = cluster.poller().state(jobId).map(job -> job.state().equals("PENDING")).orElse(false);
    if (timeoutSeconds <= 0 || queued) {
      removeRunnerContainer(cluster, container);
      cluster.client().cancel(List.of(jobId), "");
    } else {
      cluster.client().cancel(List.of(jobId), "TERM");
      if (!awaitFinish(container, Duration.ofSeconds(timeoutSeconds))) {
        removeRunnerContainer(cluster, container);
        cluster.client().cancel(List.of(jobId), "KILL");
        cluster.client().cancel(List.of(jobId), "");
      }
    }
    awaitSettled(container);
  }

  /**
   * Removes a running job's runner container from inside its allocation, where the runner lives
   * (see {@link ImageRunner#forceRemove}). Best effort: the scancel that follows ends the job anyway,
   * and a job that is still queued has no container yet (srun would wait for its allocation).
   */
  private void removeRunnerContainer(Clusters.Cluster cluster, Records.Container container) {
    List<String> argv = runner.forceRemove(container.id());
    if (argv.isEmpty()
        || !cluster.poller().state(container.jobId()).map(job -> job.state().equals("RUNNING")).orElse(false)) {
      return;
    }
    try {
      CommandResult result = cluster.client().exec(container.jobId(), argv);
      if (result.exitCode() != 0) {
        LOG.warn("container {}: {} exited {}: {}", container.id(), argv.getFirst(), result.exitCode(), result.err());
      }
    } catch (CrigateException e) {
      LOG.warn("container {}: could not remove its {} container: {}", container.id(), argv.getFirst(), e.getMessage());
    }
  }

  private void awaitSettled(Records.Container container) {
    if (!awaitFinish(container, STOP_SETTLE)) {
      throw new CrigateException.Unavailable("slurm job %d of container %s did not end within %s after scancel"
          .formatted(container.jobId(), container.id(), STOP_SETTLE));
    }
  }

  private boolean awaitFinish(Records.Container container, Duration limit) {
    String id = container.id();
    JobPoller poller = cluster(container).poller();
    Instant now = clock.instant();
    // A StopContainer timeout may be any int64 of seconds: beyond the clock's range it means "never".
    Instant deadline = limit.compareTo(Duration.between(now, Instant.MAX)) >= 0 ? Instant.MAX : now.plus(limit);
    while (!ended(id)) {
      if (!clock.instant().isBefore(deadline)) {
        return false;
      }
      poller.pollNow();
      // Sleep only if this very poll did not settle it: a stop must not cost a full pause per job.
      if (!ended(id)) {
        pause(id);
      }
    }
    return true;
  }

  private boolean ended(String id) {
    Records.Container current = containers.get(id);
    return current == null || current.finish() != null;
  }

  private static void pause(String id) {
    try {
      Thread.sleep(STOP_POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while stopping container " + id, e);
    }
  }


  @Override
  public RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    remove(request.getContainerId());
    return RemoveContainerResponse.getDefaultInstance();
  }

  private void remove(String id) {
    Records.Container container = containers.get(id);
    if (container == null) {
      return;
    }
    stop(id, 0);
    prepared.remove(id);
    LogPump pump = pumps.remove(id);
    if (pump != null) {
      pump.close();
    }
    if (container.started()) {
      cluster(container).poller().untrack(container.jobId());
      containerByJob.remove(new JobKey(clusterKey(container), container.jobId()));
    }
    SandboxDirectory.delete(dirs.container(container.sandboxId(), id));
    saves.remove(id);
    containers.remove(id);
    locks.forget(id);
    if (container.login() != null) {
      clusters.release(container.login(), id);
    }
  }

  @Override
  public ListContainersResponse listContainers(ListContainersRequest request) {
    ListContainersResponse.Builder response = ListContainersResponse.newBuilder();
    for (Records.Container container : containers.values()) {
      ContainerStatus status = status(container, false);
      response.addContainers(io.crigate.api.cri.v1.Container.newBuilder().setId(container.id())
          .setPodSandboxId(container.sandboxId()).setMetadata(status.getMetadata()).setImage(status.getImage())
          .setImageRef(status.getImageRef()).setState(status.getState()).setCreatedAt(status.getCreatedAt())
          .putAllLabels(status.getLabelsMap()).putAllAnnotations(status.getAnnotationsMap()));
    }
    return response.build();
  }

  @Override
  public ContainerStatusResponse containerStatus(ContainerStatusRequest request) {
    Records.Container container = reconcile(request.getContainerId());
    return ContainerStatusResponse.newBuilder().setStatus(status(container, true)).build();
  }

  /**
   * @param strict whether a cluster whose state is unknown fails the call (ContainerStatus) or the
   *     job is reported as last known, running, with the reason in the message (ListContainers: one
   *     login's unreachable host, or a slurmctld outage, must not fail the kubelet's relist of the
   *     whole node, which would mark it NotReady)
   */
  private ContainerStatus status(Records.Container container, boolean strict) {
    ContainerConfig config = containerConfig(container);
    ContainerStatus.Builder status = ContainerStatus.newBuilder()
        .setId(container.id())
        .setMetadata(config.getMetadata())
        .setImage(config.getImage())
        .setImageRef(config.getImage().getImage())
        .setCreatedAt(container.createdAt())
        .putAllLabels(config.getLabelsMap())
        .putAllAnnotations(config.getAnnotationsMap())
        .setLogPath(logPath(container).map(Path::toString).orElse(""));
    Records.Finish finish = container.finish();
    if (finish != null) {
      return status.setState(ContainerState.CONTAINER_EXITED).setStartedAt(finish.startedAt())
          .setFinishedAt(finish.finishedAt()).setExitCode(finish.exitCode()).setReason(finish.reason())
          .setMessage(finish.message()).build();
    }
    if (!container.started()) {
      boolean maybeSubmitted = container.submitting() || unreconciled.contains(container.id());
      return status.setState(maybeSubmitted ? ContainerState.CONTAINER_RUNNING : ContainerState.CONTAINER_CREATED)
          .build();
    }
    status.setState(JobOutcome.liveState()).setStartedAt(container.startedAt());
    Optional<JobState> job;
    try {
      job = cluster(container).poller().state(container.jobId());
    } catch (CrigateException.Unavailable unknown) {
      if (strict) {
        throw unknown;
      }
      return status.setMessage("slurm job %d: state unknown: %s".formatted(container.jobId(), unknown.getMessage()))
          .build();
    }
    job.ifPresentOrElse(
        state -> status.setReason(JobOutcome.liveReason(state)).setMessage(JobOutcome.liveMessage(state)),
        () -> status.setMessage("slurm job %d submitted".formatted(container.jobId())));
    return status.build();
  }

  @Override
  public ExecSyncResponse execSync(ExecSyncRequest request) {
    Records.Container container = container(request.getContainerId());
    if (!container.started() || container.finish() != null) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    String image = containerConfig(container).getImage().getImage();
    List<String> argv = runner.exec(image, container.id(), request.getCmdList());
    if (request.getTimeout() > 0) {
      // coreutils timeout on the compute node: the command ends there, not only our wait for it;
      // it exits 124 like containerd's timed-out exec probes fail, and KILL follows 2 s after TERM.
      argv = Stream.concat(Stream.of("timeout", "--kill-after=2", request.getTimeout() + "s"), argv.stream()).toList();
    }
    CommandResult result = cluster(container).client().exec(container.jobId(), argv);
    return ExecSyncResponse.newBuilder().setStdout(ByteString.copyFrom(result.stdout()))
        .setStderr(ByteString.copyFrom(result.stderr())).setExitCode(result.exitCode()).build();
  }

  @Override
  public ExecResponse exec(ExecRequest request) {
    streaming.runtime().checkExec(request);
    return streaming.server().exec(request, streaming.runtime());
  }

  @Override
  public AttachResponse attach(AttachRequest request) {
    streaming.runtime().checkAttach(request);
    return streaming.server().attach(request, streaming.runtime());
  }

  @Override
  public PortForwardResponse portForward(PortForwardRequest request) {
    throw new CrigateException.Unimplemented(("PortForward is not implemented for slurm backend %s: a job's ports "
        + "are on a compute node in the cluster's network, which crigate does not route to (docs/streaming.md)")
        .formatted(name));
  }

  /** crigate's streaming server and the runtime that serves it; set once by the factory. */
  record Streaming(Streams server, SlurmStreams runtime) {}

  void serveStreams(Streams server, Interactive.Launcher launcher) {
    this.streaming = new Streaming(server, new SlurmStreams(this::runningJob, launcher));
  }

  /** The running job of a container, for a streaming session. */
  RunningJob runningJob(String containerId) {
    Records.Container container = container(containerId);
    if (!container.started() || container.finish() != null) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    cluster(container).poller().state(container.jobId()).filter(job -> job.state().equals("PENDING")).ifPresent(job -> {
      throw new CrigateException.FailedPrecondition("container %s: slurm job %d is still PENDING (%s): it has no "
          .formatted(container.id(), job.jobId(), job.reason()) + "allocation to run in yet");
    });
    String image = containerConfig(container).getImage().getImage();
    return new RunningJob(container.id(), container.jobId(), container.login(),
        cmd -> runner.exec(image, container.id(), cmd), dirs.container(container.sandboxId(), container.id()),
        () -> ended(container.id()));
  }

  @Override
  public ReopenContainerLogResponse reopenContainerLog(ReopenContainerLogRequest request) {
    Records.Container container = container(request.getContainerId());
    LogPump pump = pumps.get(container.id());
    if (pump == null || container.finish() != null && records.log(container.id()).done()) {
      throw new CrigateException.FailedPrecondition("container %s is not running".formatted(container.id()));
    }
    try {
      pump.reopen();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ReopenContainerLogResponse.getDefaultInstance();
  }

  // ---- images

  @Override
  public ListImagesResponse listImages(ListImagesRequest request) {
    return images.list();
  }

  @Override
  public ImageStatusResponse imageStatus(ImageStatusRequest request) {
    return images.status(request.getImage());
  }

  @Override
  public PullImageResponse pullImage(PullImageRequest request) {
    return images.pull(request.getImage());
  }

  @Override
  public RemoveImageResponse removeImage(RemoveImageRequest request) {
    return images.remove(request.getImage());
  }

  @Override
  public ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
    return images.fsInfo();
  }

  // ---- helpers

  private void settled(String cluster, JobState job) {
    String id = containerByJob.get(new JobKey(cluster, job.jobId()));
    if (id == null) {
      return;
    }
    try (KeyedLocks.Held held = locks.hold(id)) {
      Records.Container container = containers.get(id);
      if (container == null || container.finish() != null) {
        return;
      }
      saveLater(container.finished(JobOutcome.finish(job, container.stopRequested(), container.startedAt(), nowNanos())));
    }
  }

  private void startLog(Records.Container container) {
    Optional<Path> logPath = logPath(container);
    if (logPath.isEmpty()) {
      return;
    }
    Path dir = dirs.container(container.sandboxId(), container.id());
    try {
      LogPump pump = new LogPump(container.id(), dir.resolve("stdout"), dir.resolve("stderr"),
          new CriLogWriter(logPath.get(), clock), records.log(container.id()),
          () -> {
            Records.Container current = containers.get(container.id());
            return current == null || current.finish() != null;
          },
          offsets -> {
            if (containers.containsKey(container.id())) {
              records.putLog(container.id(), offsets);
            }
          });
      pumps.put(container.id(), pump);
      pump.start();
    } catch (IOException e) {
      LOG.warn("container {}: cannot open log {}: {}", container.id(), logPath.get(), e.getMessage());
    }
  }

  private Optional<Path> logPath(Records.Container container) {
    Records.Sandbox sandbox = sandboxes.get(container.sandboxId());
    String relative = containerConfig(container).getLogPath();
    if (sandbox == null || relative.isEmpty() || podConfig(sandbox).getLogDirectory().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Path.of(podConfig(sandbox).getLogDirectory()).resolve(relative));
  }

  private List<Records.Container> containersOf(String sandboxId) {
    return containers.values().stream().filter(c -> c.sandboxId().equals(sandboxId)).toList();
  }

  private Clusters.Cluster cluster(Records.Container container) {
    return clusters.of(container.login());
  }

  private String clusterKey(Records.Container container) {
    return Objects.requireNonNullElse(container.login(), Clusters.CONFIGURED);
  }

  private Records.Container save(Records.Container container) {
    saves.now(container);
    containers.put(container.id(), container);
    return container;
  }

  /** For what a restart can learn from Slurm again: see {@link ContainerSaves}. */
  private Records.Container saveLater(Records.Container container) {
    saves.later(container);
    containers.put(container.id(), container);
    return container;
  }

  private Records.Sandbox sandbox(String id) {
    Records.Sandbox sandbox = sandboxes.get(id);
    if (sandbox == null) {
      throw new CrigateException.NotFound("sandbox %s".formatted(id));
    }
    return sandbox;
  }

  private Records.Container container(String id) {
    Records.Container container = containers.get(id);
    if (container == null) {
      throw new CrigateException.NotFound("container %s".formatted(id));
    }
    return container;
  }

  private static PodSandboxConfig podConfig(Records.Sandbox sandbox) {
    try {
      return PodSandboxConfig.parseFrom(sandbox.config());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored config of sandbox " + sandbox.id() + " is corrupt", e);
    }
  }

  private static ContainerConfig containerConfig(Records.Container container) {
    try {
      return ContainerConfig.parseFrom(container.config());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored config of container " + container.id() + " is corrupt", e);
    }
  }

  private long nowNanos() {
    return JobOutcome.nanos(clock.instant(), 0);
  }

  /** How many of this backend's containers are in each state of their job, for metrics. */
  Map<String, Long> jobsByState() {
    return containers.values().stream().collect(Collectors.groupingBy(this::jobState, Collectors.counting()));
  }

  private String jobState(Records.Container container) {
    if (container.finish() != null) {
      return "ENDED";
    }
    if (!container.started()) {
      return "NOT_SUBMITTED";
    }
    try {
      return cluster(container).poller().state(container.jobId()).map(JobState::state).orElse("SUBMITTED");
    } catch (CrigateException.Unavailable e) {
      return "UNKNOWN";
    }
  }

  /** The poller, for harnesses that count Slurm commands per poll. */
  JobPoller poller() {
    return clusters.configured().poller();
  }

  @Override
  public void close() {
    pumps.values().forEach(LogPump::close);
    clusters.close();
    saves.close();
  }
}
