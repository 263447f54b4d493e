package io.crigate.it;

import io.crigate.api.cri.v1.*;
import io.crigate.cli.ctl.CriClient;
import io.grpc.Channel;
import java.time.Duration;
import java.util.List;

/**
 * A blocking CRI client over a unix socket, as a kubelet holds one: to crigate or to a containerd
 * directly. Every call gets {@link #DEFAULT_DEADLINE} unless the test asks for another.
 */
final class CriConnection implements AutoCloseable {

  /** Long enough for a pull from the local registry; short enough that a hang fails the test. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(60);

  private final CriClient client;

  private CriConnection(CriClient client) {
    this.client = client;
  }

  /** Connects lazily to {@code unix:///path}. */
  static CriConnection open(String endpoint) {
    return new CriConnection(CriClient.connect(endpoint));
  }

  /** For calls the generated stubs cannot make, such as sending bytes that are not a valid message. */
  Channel channel() {
    return runtime().getChannel();
  }

  RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime() {
    return runtime(DEFAULT_DEADLINE);
  }

  RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime(Duration deadline) {
    return client.runtime(deadline);
  }

  ImageServiceGrpc.ImageServiceBlockingStub images() {
    return images(DEFAULT_DEADLINE);
  }

  ImageServiceGrpc.ImageServiceBlockingStub images(Duration deadline) {
    return client.images(deadline);
  }

  PodSandboxState podState(String podId) {
    return runtime().podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(podId).build())
        .getStatus().getState();
  }

  ContainerState containerState(String containerId) {
    return runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build())
        .getStatus().getState();
  }

  /** The uids of every pod this runtime lists: ids differ between crigate and a runtime, uids do not. */
  List<String> podUids() {
    return runtime().listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList().stream()
        .map(pod -> pod.getMetadata().getUid())
        .toList();
  }

  /** Stops and removes a pod, as the kubelet does when it deletes one. */
  void removePod(String podId) {
    runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
  }

  @Override
  public void close() {
    client.close();
  }
}
