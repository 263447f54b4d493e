package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "run",
    description = "Run a pod, create its container and start it (runp + create + start); prints the container id.")
final class RunCommand extends CriAction {

  @Parameters(index = "0", paramLabel = "CONTAINER-CONFIG", description = "ContainerConfig file.")
  Path containerConfig;

  @Parameters(index = "1", paramLabel = "POD-CONFIG", description = "PodSandboxConfig file.")
  Path podConfig;

  @Option(names = "--runtime", description = "Runtime handler (RuntimeClass handler) to run it with.")
  String runtimeHandler = "";

  @Option(names = "--with-pull", description = "Pull the container's image first.")
  boolean withPull;

  @Override
  int run(CriSession cri) {
    ContainerConfig container =
        ConfigFile.read(containerConfig, ContainerConfig.newBuilder()).build();
    PodSandboxConfig sandbox = ConfigFile.read(podConfig, PodSandboxConfig.newBuilder()).build();
    String podId = RunpCommand.runPod(cri, sandbox, runtimeHandler);
    try {
      String containerId = CreateCommand.create(cri, podId, container, sandbox, withPull);
      StartCommand.start(cri, containerId);
      out().println(containerId);
      return 0;
    } catch (RuntimeException e) {
      // Leave no half-made pod behind: the user asked for a running container, not a pod.
      removeAfterFailure(cri, podId);
      throw e;
    }
  }

  private void removeAfterFailure(CriSession cri, String podId) {
    try {
      StoppCommand.stop(cri, podId);
      cri.runtime()
          .removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    } catch (RuntimeException cleanup) {
      err().println(
          "crigate ctl run: pod %s is left behind, removing it failed: %s"
              .formatted(podId, cleanup.getMessage()));
    }
  }
}
