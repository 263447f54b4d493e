package io.crigate.bench;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.RuntimeBackend;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory CRI runtime for the standalone reconcile benchmark: one pod, containers that start
 * when told, the verbose status containerd gives, and UpdateContainerResources counted. It has no
 * processes, so the reconciler writes no host files; what it measures is the reconciler's own
 * delay and CPU, not the kernel's.
 */
final class FakeRuntime implements RuntimeBackend {

  private static final String SANDBOX = "sandbox-bench";

  private final PodSandboxConfig pod;
  private final Map<String, Long> startedNanos = new ConcurrentHashMap<>();
  private final Map<String, Long> startedEpochNanos = new ConcurrentHashMap<>();
  final AtomicLong updates = new AtomicLong();

  FakeRuntime(PodSandboxConfig pod) {
    this.pod = pod;
  }

  void start(String id) {
    startedEpochNanos.put(id, System.currentTimeMillis() * 1_000_000);
    startedNanos.put(id, System.nanoTime());
  }

  long sinceStart(String id) {
    return System.nanoTime() - startedNanos.get(id);
  }

  @Override
  public ListContainersResponse listContainers(ListContainersRequest request) {
    ListContainersResponse.Builder list = ListContainersResponse.newBuilder();
    startedNanos.keySet().forEach(id -> list.addContainers(Container.newBuilder().setId(id).setPodSandboxId(SANDBOX)
        .setMetadata(ContainerMetadata.newBuilder().setName("app")).setState(ContainerState.CONTAINER_RUNNING)));
    return list.build();
  }

  @Override
  public ContainerStatusResponse containerStatus(ContainerStatusRequest request) {
    String id = request.getContainerId();
    return ContainerStatusResponse.newBuilder()
        .setStatus(ContainerStatus.newBuilder().setId(id).setMetadata(ContainerMetadata.newBuilder().setName("app"))
            .setState(ContainerState.CONTAINER_RUNNING).setStartedAt(startedEpochNanos.get(id))
            .setResources(ContainerResources.newBuilder().setLinux(LinuxContainerResources.newBuilder().setCpuShares(2))))
        .putInfo("info", "{\"sandboxID\":\"%s\",\"pid\":0,\"runtimeSpec\":{\"process\":{\"env\":[\"PATH=/bin\"]}}}"
            .formatted(SANDBOX))
        .build();
  }

  @Override
  public PodSandboxStatusResponse podSandboxStatus(PodSandboxStatusRequest request) {
    return PodSandboxStatusResponse.newBuilder()
        .setStatus(PodSandboxStatus.newBuilder().setId(SANDBOX).setState(PodSandboxState.SANDBOX_READY)
            .setMetadata(pod.getMetadata()).putAllLabels(pod.getLabelsMap()).putAllAnnotations(pod.getAnnotationsMap()))
        .putInfo("info", "{\"config\":{\"linux\":{}}}")
        .build();
  }

  @Override
  public UpdateContainerResourcesResponse updateContainerResources(UpdateContainerResourcesRequest request) {
    updates.incrementAndGet();
    return UpdateContainerResourcesResponse.getDefaultInstance();
  }

  @Override
  public VersionResponse version(VersionRequest request) {
    return VersionResponse.newBuilder().setRuntimeName("fake").build();
  }

  @Override
  public StatusResponse status(StatusRequest request) {
    return StatusResponse.getDefaultInstance();
  }

  @Override
  public RunPodSandboxResponse runPodSandbox(RunPodSandboxRequest request) {
    throw new UnsupportedOperationException("the benchmark's pod exists from the start");
  }

  @Override
  public StopPodSandboxResponse stopPodSandbox(StopPodSandboxRequest request) {
    throw new UnsupportedOperationException("not used by the reconciler");
  }

  @Override
  public RemovePodSandboxResponse removePodSandbox(RemovePodSandboxRequest request) {
    throw new UnsupportedOperationException("not used by the reconciler");
  }

  @Override
  public ListPodSandboxResponse listPodSandbox(ListPodSandboxRequest request) {
    return ListPodSandboxResponse.getDefaultInstance();
  }

  @Override
  public CreateContainerResponse createContainer(CreateContainerRequest request) {
    throw new UnsupportedOperationException("containers appear through start()");
  }

  @Override
  public StartContainerResponse startContainer(StartContainerRequest request) {
    throw new UnsupportedOperationException("containers appear through start()");
  }

  @Override
  public StopContainerResponse stopContainer(StopContainerRequest request) {
    throw new UnsupportedOperationException("not used by the reconciler");
  }

  @Override
  public RemoveContainerResponse removeContainer(RemoveContainerRequest request) {
    throw new UnsupportedOperationException("not used by the reconciler");
  }

  @Override
  public ExecSyncResponse execSync(ExecSyncRequest request) {
    throw new UnsupportedOperationException("not used by the reconciler");
  }
}
