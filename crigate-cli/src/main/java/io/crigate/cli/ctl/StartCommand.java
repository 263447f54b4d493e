package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.StartContainerRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "start", description = "Start created containers.")
final class StartCommand extends CriAction {

  @Parameters(arity = "1..*", paramLabel = "CONTAINER-ID", description = "Container ids or unique prefixes.")
  List<String> containers;

  @Override
  int run(CriSession cri) {
    for (String prefix : containers) {
      String id = cri.containerId(prefix);
      start(cri, id);
      out().println(id);
    }
    return 0;
  }

  static void start(CriSession cri, String id) {
    cri.runtime().startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
  }
}
