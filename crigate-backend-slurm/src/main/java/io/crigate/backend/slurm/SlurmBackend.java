package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Streams;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Runs each container as one Slurm batch job. A pod is a directory on the cluster's shared work
 * dir; CreateContainer plans the job, StartContainer submits it. This class only answers the SPI:
 * each call is carried out by one of the parts wired here (see docs/slurm.md, "Inside the backend").
 */
final class SlurmBackend implements Backend {

  private final String name;
  private final SandboxDirectory dirs;
  private final Inventory inventory;
  private final Clusters clusters;
  private final LogPumps logs;
  private final JobFollowing following;
  private final Reconciler reconciler;
  private final Submissions submissions;
  private final StopProtocol stops;
  private final CriStatus statuses;
  private final RunningJobs running;
  private final ImageCatalog images;

  private final Optional<String> jobUser;
  private volatile Streaming streaming;

  SlurmBackend(String name, SlurmSettings settings, SlurmClient configured,
      Function<ClusterLogin, SlurmClient> connect, RecordStore records, LoginVault vault, Clock clock) {
    this.name = name;
    this.jobUser = settings.jobUser();
    this.dirs = new SandboxDirectory(settings.workDirPath());
    this.inventory = new Inventory(records, clock);
    ImageRunner runner = ImageRunner.parse(name, settings.runner());
    this.images = new ImageCatalog(runner, configured, records, dirs.images(), jobUser, clock);
    Map<String, Set<String>> containersByLogin = inventory.containers().stream()
        .filter(c -> c.login() != null).collect(Collectors.groupingBy(Records.Container::login,
            Collectors.mapping(Records.Container::id, Collectors.toSet())));
    JobEnds ends = new JobEnds(inventory, dirs);
    this.clusters = new Clusters(configured, connect, records, vault, containersByLogin, settings.pollInterval(),
        ends::settled);
    this.logs = new LogPumps(inventory, dirs);
    this.following = new JobFollowing(clusters, ends, logs);
    this.reconciler = new Reconciler(inventory, clusters, following);
    Optional<KnownLoginHosts> loginHosts = Optional.ofNullable(settings.containerLogins())
        .map(logins -> new KnownLoginHosts(logins.knownHosts()));
    this.submissions = new Submissions(inventory, clusters, reconciler, following,
        new LoginAdmission(name, loginHosts, clusters), new JobPlanner(settings, runner), new SealedEnv(vault), dirs, jobUser);
    this.stops = new StopProtocol(inventory, clusters, reconciler, runner);
    this.statuses = new CriStatus(clusters, reconciler, logs);
    this.running = new RunningJobs(inventory, clusters, runner, dirs);
    this.streaming = new Streaming(Streams.NONE, new SlurmStreams(running::runningJob),
        new JobPortForwarder(running::runningJobsOf, settings.portForwardStandby()));
    reconciler.resumeAll();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<String> workloadUser() {
    return jobUser;
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
    } catch (CrigateException.Unavailable | CrigateException.PermissionDenied e) {
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
    inventory.put(new Records.Sandbox(id, request.getConfig().toByteArray(), inventory.nowNanos(), true));
    return RunPodSandboxResponse.newBuilder().setPodSandboxId(id).build();
  }

  @Override
  public StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    String id = request.getPodSandboxId();
    stops.stopAll(id);
    inventory.findSandbox(id).filter(Records.Sandbox::ready).ifPresent(sandbox -> inventory.put(sandbox.notReady()));
    return StopPodSandboxResponse.getDefaultInstance();
  }

  @Override
  public RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    String id = request.getPodSandboxId();
    stops.stopAll(id);
    inventory.containersOf(id).forEach(container -> remove(container.id()));
    if (inventory.findSandbox(id).isPresent()) {
      SandboxDirectory.delete(dirs.pod(id));
      inventory.removeSandbox(id);
    }
    return RemovePodSandboxResponse.getDefaultInstance();
  }

  @Override
  public PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request) {
    return PodSandboxStatusResponse.newBuilder()
        .setStatus(statuses.pod(inventory.sandbox(request.getPodSandboxId()))).build();
  }

  @Override
  public ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request) {
    ListPodSandboxResponse.Builder response = ListPodSandboxResponse.newBuilder();
    inventory.sandboxes().forEach(sandbox -> response.addItems(statuses.podListItem(sandbox)));
    return response.build();
  }

  // ---- containers

  @Override
  public CreateContainerResponse createContainer(CreateContainerRequest request) {
    return CreateContainerResponse.newBuilder().setContainerId(submissions.create(request)).build();
  }

  @Override
  public StartContainerResponse startContainer(StartContainerRequest request) {
    submissions.start(request.getContainerId());
    return StartContainerResponse.getDefaultInstance();
  }

  @Override
  public StopContainerResponse stopContainer(StopContainerRequest request) {
    inventory.container(request.getContainerId());
    stops.stop(request.getContainerId(), request.getTimeout());
    return StopContainerResponse.getDefaultInstance();
  }

  @Override
  public RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    remove(request.getContainerId());
    return RemoveContainerResponse.getDefaultInstance();
  }

  /** Stops the job, then lets go of everything the container held: plan, log, tracking, directory, record, login. */
  private void remove(String id) {
    Optional<Records.Container> found = inventory.findContainer(id);
    if (found.isEmpty()) {
      return;
    }
    Records.Container container = found.get();
    stops.stop(id, 0);
    submissions.discard(id);
    following.unfollow(container);
    SandboxDirectory.delete(dirs.container(container.sandboxId(), id));
    inventory.forget(id);
    if (container.login() != null) {
      clusters.release(container.login(), id);
    }
  }

  @Override
  public ListContainersResponse listContainers(ListContainersRequest request) {
    ListContainersResponse.Builder response = ListContainersResponse.newBuilder();
    inventory.containers().forEach(container -> response.addContainers(statuses.containerListItem(container)));
    return response.build();
  }

  @Override
  public ContainerStatusResponse containerStatus(ContainerStatusRequest request) {
    Records.Container container = reconciler.reconcile(request.getContainerId());
    return ContainerStatusResponse.newBuilder().setStatus(statuses.container(container, true)).build();
  }

  @Override
  public ExecSyncResponse execSync(ExecSyncRequest request) {
    return running.execSync(request);
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
    streaming.forwarder().check(request);
    return streaming.server().portForward(request, streaming.forwarder());
  }

  /** crigate's streaming server and what serves it for this backend; the server is set once by the factory. */
  record Streaming(Streams server, SlurmStreams runtime, JobPortForwarder forwarder) {}

  void serveStreams(Streams server) {
    this.streaming = new Streaming(server, streaming.runtime(), streaming.forwarder());
  }

  @Override
  public ReopenContainerLogResponse reopenContainerLog(ReopenContainerLogRequest request) {
    logs.reopen(inventory.container(request.getContainerId()));
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

  // ---- for metrics

  /** How many of this backend's containers are in each state of their job. */
  Map<String, Long> jobsByState() {
    return inventory.containers().stream().collect(Collectors.groupingBy(statuses::jobState, Collectors.counting()));
  }

  /** Port-forward relay steps started ahead, waiting in their jobs. */
  int portRelaysWaiting() {
    return streaming.forwarder().relaysWaiting();
  }

  /** The configured cluster's poller, whose polls the metrics time. */
  JobPoller poller() {
    return clusters.configured().poller();
  }

  @Override
  public void close() {
    streaming.forwarder().close();
    logs.close();
    clusters.close();
    inventory.close();
  }
}
