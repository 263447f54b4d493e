package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.PodSandboxConfig;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "create",
    description = "Create a container in a pod from container and pod config files; prints its id.")
final class CreateCommand extends CriAction {

  @Parameters(index = "0", paramLabel = "POD-ID", description = "Pod id or unique prefix.")
  String pod;

  @Parameters(index = "1", paramLabel = "CONTAINER-CONFIG", description = "ContainerConfig file.")
  Path containerConfig;

  @Parameters(index = "2", paramLabel = "POD-CONFIG", description = "The pod's PodSandboxConfig file.")
  Path podConfig;

  @Option(names = "--with-pull", description = "Pull the container's image first.")
  boolean withPull;

  @Override
  int run(CriSession cri) {
    ContainerConfig container =
        ConfigFile.read(containerConfig, ContainerConfig.newBuilder()).build();
    PodSandboxConfig sandbox = ConfigFile.read(podConfig, PodSandboxConfig.newBuilder()).build();
    out().println(create(cri, cri.podId(pod), container, sandbox, withPull));
    return 0;
  }

  static String create(
      CriSession cri,
      String podId,
      ContainerConfig container,
      PodSandboxConfig sandbox,
      boolean withPull) {
    if (withPull) {
      ImagePull.pull(cri, container.getImage(), sandbox, null);
    }
    return cri.runtime()
        .createContainer(
            CreateContainerRequest.newBuilder()
                .setPodSandboxId(podId)
                .setConfig(container)
                .setSandboxConfig(sandbox)
                .build())
        .getContainerId();
  }
}
