package io.crigate.testsupport;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real, if tiny, runtime kept in memory: sandboxes, containers and images with CRI state
 * transitions. Like a remote runtime that ignores filters, its list calls return everything, so
 * the tests see core's own filtering. {@link #setAvailable(boolean) setAvailable(false)} makes
 * every call fail as an unreachable runtime does.
 */
public final class InMemoryBackend implements Backend {

  private final String name;
  private final Map<String, PodSandbox> sandboxes = new ConcurrentHashMap<>();
  private final Map<String, Container> containers = new ConcurrentHashMap<>();
  private final Map<String, Image> images = new ConcurrentHashMap<>();
  private final Map<String, ContainerConfig> configs = new ConcurrentHashMap<>();
  private final Map<String, LinuxContainerResources> resources = new ConcurrentHashMap<>();
  private final Map<String, LinuxContainerResources> podResources = new ConcurrentHashMap<>();
  private final List<StreamObserver<ContainerEventResponse>> subscribers = new CopyOnWriteArrayList<>();
  private final AtomicInteger nextId = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicReference<Deadline> lastDeadline = new AtomicReference<>();
  private final AtomicReference<String> lastHandler = new AtomicReference<>();
  private volatile boolean available = true;
  private volatile List<RuntimeHandler> handlers = List.of();

  public InMemoryBackend(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  public void setAvailable(boolean available) {
    this.available = available;
  }

  public void reportHandlers(List<RuntimeHandler> handlers) {
    this.handlers = handlers;
  }

  public int calls() {
    return calls.get();
  }

  public void resetCalls() {
    calls.set(0);
  }

  public Deadline lastDeadline() {
    return lastDeadline.get();
  }

  public String lastHandler() {
    return lastHandler.get();
  }

  public int subscribers() {
    return subscribers.size();
  }

  /** Sends an event to every current subscriber, as a runtime does when a container changes state. */
  public void emit(ContainerEventResponse event) {
    subscribers.forEach(subscriber -> subscriber.onNext(event));
  }

  /** Forgets a sandbox behind crigate's back, as when a runtime's state is wiped. */
  public void forget(String sandboxId) {
    sandboxes.remove(sandboxId);
    containers.values().removeIf(container -> container.getPodSandboxId().equals(sandboxId));
  }

  private void enter() {
    calls.incrementAndGet();
    lastDeadline.set(Context.current().getDeadline());
    if (!available) {
      throw new CrigateException.Unavailable("backend %s is down".formatted(name));
    }
  }

  private String newId(String kind) {
    return "%s-%s-%d".formatted(name, kind, nextId.incrementAndGet());
  }

  @Override
  public VersionResponse version(VersionRequest request) {
    enter();
    return VersionResponse.newBuilder().setRuntimeName("inmemory-" + name).setRuntimeApiVersion("v1").build();
  }

  @Override
  public StatusResponse status(StatusRequest request) {
    enter();
    return StatusResponse.newBuilder()
        .setStatus(RuntimeStatus.newBuilder()
            .addConditions(RuntimeCondition.newBuilder().setType("RuntimeReady").setStatus(true))
            .addConditions(RuntimeCondition.newBuilder().setType("NetworkReady").setStatus(true)))
        .putInfo("backend", name)
        .addAllRuntimeHandlers(handlers)
        .build();
  }

  @Override
  public RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request) {
    enter();
    lastHandler.set(request.getRuntimeHandler());
    String id = newId("sandbox");
    sandboxes.put(id, PodSandbox.newBuilder()
        .setId(id)
        .setMetadata(request.getConfig().getMetadata())
        .setState(PodSandboxState.SANDBOX_READY)
        .setCreatedAt(System.nanoTime())
        .putAllLabels(request.getConfig().getLabelsMap())
        .setRuntimeHandler(request.getRuntimeHandler())
        .build());
    return RunPodSandboxResponse.newBuilder().setPodSandboxId(id).build();
  }

  @Override
  public StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    enter();
    PodSandbox sandbox = sandbox(request.getPodSandboxId());
    sandboxes.put(sandbox.getId(), sandbox.toBuilder().setState(PodSandboxState.SANDBOX_NOTREADY).build());
    return StopPodSandboxResponse.getDefaultInstance();
  }

  @Override
  public RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    enter();
    forget(request.getPodSandboxId());
    return RemovePodSandboxResponse.getDefaultInstance();
  }

  @Override
  public PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request) {
    enter();
    PodSandbox sandbox = sandbox(request.getPodSandboxId());
    return PodSandboxStatusResponse.newBuilder().setStatus(PodSandboxStatus.newBuilder()
        .setId(sandbox.getId()).setMetadata(sandbox.getMetadata()).setState(sandbox.getState())
        .putAllLabels(sandbox.getLabelsMap()).setRuntimeHandler(sandbox.getRuntimeHandler())).build();
  }

  @Override
  public ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request) {
    enter();
    return ListPodSandboxResponse.newBuilder().addAllItems(sandboxes.values()).build();
  }

  @Override
  public CreateContainerResponse createContainer(CreateContainerRequest request) {
    enter();
    sandbox(request.getPodSandboxId());
    String id = newId("container");
    containers.put(id, Container.newBuilder()
        .setId(id)
        .setPodSandboxId(request.getPodSandboxId())
        .setMetadata(request.getConfig().getMetadata())
        .setImage(request.getConfig().getImage())
        .setState(ContainerState.CONTAINER_CREATED)
        .setCreatedAt(System.nanoTime())
        .putAllLabels(request.getConfig().getLabelsMap())
        .build());
    configs.put(id, request.getConfig());
    resources.put(id, request.getConfig().getLinux().getResources());
    return CreateContainerResponse.newBuilder().setContainerId(id).build();
  }

  @Override
  public StartContainerResponse startContainer(StartContainerRequest request) {
    enter();
    setState(request.getContainerId(), ContainerState.CONTAINER_RUNNING);
    emit(ContainerEventResponse.newBuilder().setContainerId(request.getContainerId())
        .setContainerEventType(ContainerEventType.CONTAINER_STARTED_EVENT).build());
    return StartContainerResponse.getDefaultInstance();
  }

  @Override
  public StopContainerResponse stopContainer(StopContainerRequest request) {
    enter();
    setState(request.getContainerId(), ContainerState.CONTAINER_EXITED);
    return StopContainerResponse.getDefaultInstance();
  }

  @Override
  public RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    enter();
    containers.remove(request.getContainerId());
    return RemoveContainerResponse.getDefaultInstance();
  }

  @Override
  public ListContainersResponse listContainers(ListContainersRequest request) {
    enter();
    return ListContainersResponse.newBuilder().addAllContainers(containers.values()).build();
  }

  @Override
  public ContainerStatusResponse containerStatus(ContainerStatusRequest request) {
    enter();
    Container container = container(request.getContainerId());
    return ContainerStatusResponse.newBuilder().setStatus(ContainerStatus.newBuilder()
        .setId(container.getId()).setMetadata(container.getMetadata()).setState(container.getState())
        .setResources(ContainerResources.newBuilder().setLinux(resources(container.getId())))).build();
  }

  /** Like containerd: a zero or empty field leaves the container's value as it was. */
  @Override
  public UpdateContainerResourcesResponse updateContainerResources(UpdateContainerResourcesRequest request) {
    enter();
    container(request.getContainerId());
    LinuxContainerResources change = request.getLinux();
    resources.compute(request.getContainerId(), (id, old) -> {
      LinuxContainerResources.Builder b = old.toBuilder();
      if (!change.getCpusetCpus().isEmpty()) {
        b.setCpusetCpus(change.getCpusetCpus());
      }
      if (!change.getCpusetMems().isEmpty()) {
        b.setCpusetMems(change.getCpusetMems());
      }
      if (change.getCpuShares() != 0) {
        b.setCpuShares(change.getCpuShares());
      }
      if (change.getMemoryLimitInBytes() != 0) {
        b.setMemoryLimitInBytes(change.getMemoryLimitInBytes());
      }
      return b.build();
    });
    return UpdateContainerResourcesResponse.getDefaultInstance();
  }

  /** Keeps the pod's new resources, as containerd 2 does, for {@link #podResources}. */
  @Override
  public UpdatePodSandboxResourcesResponse updatePodSandboxResources(UpdatePodSandboxResourcesRequest request) {
    enter();
    sandbox(request.getPodSandboxId());
    podResources.put(request.getPodSandboxId(), request.getResources());
    return UpdatePodSandboxResourcesResponse.getDefaultInstance();
  }

  /** The pod's resources as the last UpdatePodSandboxResources set them. */
  public LinuxContainerResources podResources(String sandboxId) {
    return podResources.getOrDefault(sandboxId, LinuxContainerResources.getDefaultInstance());
  }

  /** The config CreateContainer brought, as the runtime received it. */
  public ContainerConfig createdConfig(String containerId) {
    return configs.get(containerId);
  }

  /** The resources the container runs with now. */
  public LinuxContainerResources resources(String containerId) {
    return resources.getOrDefault(containerId, LinuxContainerResources.getDefaultInstance());
  }

  @Override
  public ExecSyncResponse execSync(ExecSyncRequest request) {
    enter();
    container(request.getContainerId());
    return ExecSyncResponse.newBuilder().setStdout(com.google.protobuf.ByteString.copyFromUtf8(name)).build();
  }

  @Override
  public ExecResponse exec(ExecRequest request) {
    enter();
    return ExecResponse.newBuilder().setUrl(url("exec", container(request.getContainerId()).getId())).build();
  }

  @Override
  public AttachResponse attach(AttachRequest request) {
    enter();
    return AttachResponse.newBuilder().setUrl(url("attach", container(request.getContainerId()).getId())).build();
  }

  @Override
  public PortForwardResponse portForward(PortForwardRequest request) {
    enter();
    return PortForwardResponse.newBuilder().setUrl(url("portforward", sandbox(request.getPodSandboxId()).getId())).build();
  }

  @Override
  public ListContainerStatsResponse listContainerStats(ListContainerStatsRequest request) {
    enter();
    return ListContainerStatsResponse.newBuilder().addAllStats(containers.values().stream()
        .map(container -> ContainerStats.newBuilder().setAttributes(ContainerAttributes.newBuilder()
            .setId(container.getId()).setMetadata(container.getMetadata()).putAllLabels(container.getLabelsMap())).build())
        .toList()).build();
  }

  @Override
  public ListPodSandboxStatsResponse listPodSandboxStats(ListPodSandboxStatsRequest request) {
    enter();
    return ListPodSandboxStatsResponse.newBuilder().addAllStats(sandboxes.values().stream()
        .map(sandbox -> PodSandboxStats.newBuilder().setAttributes(PodSandboxAttributes.newBuilder()
            .setId(sandbox.getId()).setMetadata(sandbox.getMetadata()).putAllLabels(sandbox.getLabelsMap())).build())
        .toList()).build();
  }

  @Override
  public UpdateRuntimeConfigResponse updateRuntimeConfig(UpdateRuntimeConfigRequest request) {
    enter();
    return UpdateRuntimeConfigResponse.getDefaultInstance();
  }

  @Override
  public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> events) {
    enter();
    CountDownLatch cancelled = new CountDownLatch(1);
    Context.current().addListener(context -> cancelled.countDown(), Runnable::run);
    subscribers.add(events);
    try {
      cancelled.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      subscribers.remove(events);
    }
  }

  @Override
  public ListImagesResponse listImages(ListImagesRequest request) {
    enter();
    return ListImagesResponse.newBuilder().addAllImages(images.values()).build();
  }

  @Override
  public ImageStatusResponse imageStatus(ImageStatusRequest request) {
    enter();
    Image image = images.get(imageId(request.getImage().getImage()));
    return image == null ? ImageStatusResponse.getDefaultInstance() : ImageStatusResponse.newBuilder().setImage(image).build();
  }

  @Override
  public PullImageResponse pullImage(PullImageRequest request) {
    enter();
    lastHandler.set(request.getImage().getRuntimeHandler());
    String id = imageId(request.getImage().getImage());
    images.put(id, Image.newBuilder().setId(id).addRepoTags(request.getImage().getImage()).setSize(1).build());
    return PullImageResponse.newBuilder().setImageRef(id).build();
  }

  @Override
  public RemoveImageResponse removeImage(RemoveImageRequest request) {
    enter();
    images.remove(imageId(request.getImage().getImage()));
    return RemoveImageResponse.getDefaultInstance();
  }

  @Override
  public ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
    enter();
    return ImageFsInfoResponse.newBuilder().addImageFilesystems(FilesystemUsage.newBuilder()
        .setFsId(FilesystemIdentifier.newBuilder().setMountpoint("/var/lib/" + name))).build();
  }

  @Override
  public void close() {}

  /** Same name, same id on every backend, as content addressing gives real runtimes. */
  public static String imageId(String reference) {
    return "sha256:" + Integer.toHexString(reference.hashCode());
  }

  private String url(String kind, String id) {
    return "http://%s.invalid/%s/%s".formatted(name, kind, id);
  }

  private PodSandbox sandbox(String id) {
    PodSandbox sandbox = sandboxes.get(id);
    if (sandbox == null) {
      throw new CrigateException.NotFound("sandbox %s on %s".formatted(id, name));
    }
    return sandbox;
  }

  private Container container(String id) {
    Container container = containers.get(id);
    if (container == null) {
      throw new CrigateException.NotFound("container %s on %s".formatted(id, name));
    }
    return container;
  }

  private void setState(String id, ContainerState state) {
    containers.put(id, container(id).toBuilder().setState(state).build());
  }
}
