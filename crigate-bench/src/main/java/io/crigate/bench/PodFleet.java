package io.crigate.bench;

import io.crigate.api.cri.v1.*;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import io.crigate.cli.ctl.CriClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Host-network pods with one long-running container each, as the kubelet would create them, and
 * one full pod lifecycle (run, create, start, stop, remove) for timing.
 */
final class PodFleet {

  private static final Duration CALL_DEADLINE = Duration.ofMinutes(2);

  record Pod(String sandboxId, String containerId) {}

  /** The calls of one lifecycle, in the order the kubelet makes them. */
  enum Step {
    RUN_POD_SANDBOX("RunPodSandbox"), CREATE_CONTAINER("CreateContainer"), START_CONTAINER("StartContainer"),
    STOP_CONTAINER("StopContainer"), REMOVE_CONTAINER("RemoveContainer"), STOP_POD_SANDBOX("StopPodSandbox"),
    REMOVE_POD_SANDBOX("RemovePodSandbox");

    final String call;

    Step(String call) {
      this.call = call;
    }
  }

  /** Wall time of each call of one lifecycle, indexed by {@link Step#ordinal()}; null when not timed. */
  private long[] stepNanos;

  private final CriClient client;
  private final String image;
  private final Path logRoot;
  private final List<Pod> pods = new ArrayList<>();
  private int sequence;

  PodFleet(CriClient client, String image, Path logRoot) {
    this.client = client;
    this.image = image;
    this.logRoot = logRoot;
  }

  void pullImage() {
    client.images(CALL_DEADLINE).pullImage(
        PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
  }

  /** Starts {@code count} pods that keep running until {@link #removeAll()}. */
  List<Pod> start(int count) throws IOException {
    for (int i = 0; i < count; i++) {
      pods.add(runPodWithContainer());
    }
    return List.copyOf(pods);
  }

  /** Runs one pod through its whole life and back out; throws if any step fails. */
  void lifecycle() throws IOException {
    remove(runPodWithContainer());
  }

  /** As {@link #lifecycle()}, returning each call's wall time in nanoseconds, indexed by {@link Step#ordinal()}. */
  long[] timedLifecycle() throws IOException {
    stepNanos = new long[Step.values().length];
    try {
      lifecycle();
      return stepNanos;
    } finally {
      stepNanos = null;
    }
  }

  void removeAll() {
    pods.forEach(this::remove);
    pods.clear();
  }

  private Pod runPodWithContainer() throws IOException {
    String name = "bench-" + ProcessHandle.current().pid() + "-" + sequence++;
    Path logDir = Files.createDirectories(logRoot.resolve(name));
    PodSandboxConfig pod = hostNetworkPod(name, "crigate-bench", logDir);
    RuntimeServiceBlockingStub runtime = client.runtime(CALL_DEADLINE);
    long start = System.nanoTime();
    String sandboxId = runtime.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build())
        .getPodSandboxId();
    start = step(Step.RUN_POD_SANDBOX, start);
    ContainerConfig container = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("sleeper"))
        .setImage(ImageSpec.newBuilder().setImage(image))
        .addCommand("/bin/sleep").addArgs("3600")
        .setLogPath("sleeper.log")
        .build();
    start = System.nanoTime();
    String containerId = runtime.createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId(sandboxId).setConfig(container).setSandboxConfig(pod).build()).getContainerId();
    start = step(Step.CREATE_CONTAINER, start);
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());
    step(Step.START_CONTAINER, start);
    return new Pod(sandboxId, containerId);
  }

  /** A host-network pod (no CNI on the bench machines) whose uid is its name, logging under {@code logDir}. */
  static PodSandboxConfig hostNetworkPod(String name, String namespace, Path logDir) {
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace(namespace).setUid(name))
        .setLogDirectory(logDir.toString())
        .setLinux(LinuxPodSandboxConfig.newBuilder().setSecurityContext(LinuxSandboxSecurityContext.newBuilder()
            .setNamespaceOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE))))
        .build();
  }

  private void remove(Pod pod) {
    RuntimeServiceBlockingStub runtime = client.runtime(CALL_DEADLINE);
    long start = System.nanoTime();
    runtime.stopContainer(StopContainerRequest.newBuilder().setContainerId(pod.containerId()).setTimeout(0).build());
    start = step(Step.STOP_CONTAINER, start);
    runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(pod.containerId()).build());
    start = step(Step.REMOVE_CONTAINER, start);
    runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build());
    start = step(Step.STOP_POD_SANDBOX, start);
    runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build());
    step(Step.REMOVE_POD_SANDBOX, start);
  }

  /** Records the step that began at {@code start} when a timed lifecycle runs; returns now, the next step's start. */
  private long step(Step step, long start) {
    long now = System.nanoTime();
    if (stepNanos != null) {
      stepNanos[step.ordinal()] = now - start;
    }
    return now;
  }
}
