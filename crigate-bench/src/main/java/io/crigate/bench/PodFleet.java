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

  void removeAll() {
    pods.forEach(this::remove);
    pods.clear();
  }

  private Pod runPodWithContainer() throws IOException {
    String name = "bench-" + ProcessHandle.current().pid() + "-" + sequence++;
    Path logDir = Files.createDirectories(logRoot.resolve(name));
    PodSandboxConfig pod = hostNetworkPod(name, "crigate-bench", logDir);
    RuntimeServiceBlockingStub runtime = client.runtime(CALL_DEADLINE);
    String sandboxId = runtime.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build())
        .getPodSandboxId();
    ContainerConfig container = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("sleeper"))
        .setImage(ImageSpec.newBuilder().setImage(image))
        .addCommand("/bin/sleep").addArgs("3600")
        .setLogPath("sleeper.log")
        .build();
    String containerId = runtime.createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId(sandboxId).setConfig(container).setSandboxConfig(pod).build()).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());
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
    runtime.stopContainer(StopContainerRequest.newBuilder().setContainerId(pod.containerId()).setTimeout(0).build());
    runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(pod.containerId()).build());
    runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build());
    runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build());
  }
}
