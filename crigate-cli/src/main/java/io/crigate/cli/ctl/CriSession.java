package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ImageServiceGrpc.ImageServiceBlockingStub;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import java.time.Duration;
import java.util.List;

/** What one ctl command sees of the runtime: stubs with a fresh deadline per call, and id lookup. */
final class CriSession {

  private final CriClient client;
  private final Duration deadline;

  CriSession(CriClient client, Duration deadline) {
    this.client = client;
    this.deadline = deadline;
  }

  RuntimeServiceBlockingStub runtime() {
    return client.runtime(deadline);
  }

  ImageServiceBlockingStub images() {
    return client.images(deadline);
  }

  List<PodSandbox> pods() {
    return runtime().listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList();
  }

  List<Container> containers() {
    return runtime().listContainers(ListContainersRequest.getDefaultInstance()).getContainersList();
  }

  String podId(String prefix) {
    return IdPrefix.resolve("pod", prefix, pods().stream().map(PodSandbox::getId).toList());
  }

  String containerId(String prefix) {
    return IdPrefix.resolve(
        "container", prefix, containers().stream().map(Container::getId).toList());
  }
}
