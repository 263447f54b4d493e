package io.crigate.it;

import io.crigate.api.cri.v1.*;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/** CRI configurations the tests use: host-network pods (no CNI on these machines) and shell containers. */
final class CriObjects {

  /** The namespace of the pods these helpers make. */
  static final String NAMESPACE = "crigate-it";

  private CriObjects() {}

  /**
   * A host-network pod with a fresh uid, logging under {@code logRoot/<uid>}, which this creates as
   * the kubelet would: the runtime only creates the log files.
   */
  static PodSandboxConfig hostNetworkPod(String name, Path logRoot) {
    String uid = UUID.randomUUID().toString();
    try {
      Files.createDirectories(logRoot.resolve(uid));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace(NAMESPACE).setUid(uid))
        .setLogDirectory(logRoot.resolve(uid).toString())
        .setLinux(LinuxPodSandboxConfig.newBuilder().setSecurityContext(LinuxSandboxSecurityContext.newBuilder()
            .setNamespaceOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE))))
        .build();
  }

  /** A container running {@code script} with /bin/sh, logging to {@code <name>.log} in the pod's log directory. */
  static ContainerConfig shellContainer(String name, String image, String script) {
    return ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName(name))
        .setImage(ImageSpec.newBuilder().setImage(image))
        .addCommand("/bin/sh").addArgs("-c").addArgs(script)
        .setLogPath(name + ".log")
        .build();
  }

  static RunPodSandboxRequest runPod(PodSandboxConfig pod, String handler) {
    return RunPodSandboxRequest.newBuilder().setConfig(pod).setRuntimeHandler(handler).build();
  }

  static CreateContainerRequest create(String podId, ContainerConfig container, PodSandboxConfig pod) {
    return CreateContainerRequest.newBuilder().setPodSandboxId(podId).setConfig(container).setSandboxConfig(pod).build();
  }

  /**
   * Pulls onto the backend that serves {@code handler}: each containerd has its own image store, and
   * the CRI names the pull's runtime in {@code ImageSpec.runtime_handler} (KEP-4216).
   */
  static PullImageRequest pull(String image, PodSandboxConfig pod, String handler) {
    return PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage(image).setRuntimeHandler(handler))
        .setSandboxConfig(pod)
        .build();
  }
}
