package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.RemoveContainerRequest;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

@Command(name = "rm", description = "Remove containers; running ones only with -f.")
final class RmCommand extends RemoveAction<Container> {

  @Override
  String kind() {
    return "container";
  }

  @Override
  Map<String, Container> list(CriSession cri) {
    return cri.containers().stream().collect(Collectors.toMap(Container::getId, Function.identity()));
  }

  @Override
  boolean isActive(Container container) {
    return container.getState() == ContainerState.CONTAINER_RUNNING;
  }

  @Override
  void stop(CriSession cri, String id) {
    StopCommand.stop(cri, id, 0);
  }

  @Override
  String remove(CriSession cri, String id) {
    cri.runtime().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(id).build());
    return id;
  }
}
