package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.StopContainerRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "stop", description = "Stop running containers.")
final class StopCommand extends CriAction {

  @Parameters(arity = "1..*", paramLabel = "CONTAINER-ID", description = "Container ids or unique prefixes.")
  List<String> containers;

  @Option(
      names = {"-t", "--timeout"},
      description = "Seconds to wait after the stop signal before killing (default: 0, kill at once).")
  long graceSeconds;

  @Override
  int run(CriSession cri) {
    for (String prefix : containers) {
      String id = cri.containerId(prefix);
      stop(cri, id, graceSeconds);
      out().println(id);
    }
    return 0;
  }

  static void stop(CriSession cri, String id, long graceSeconds) {
    cri.runtime()
        .stopContainer(
            StopContainerRequest.newBuilder().setContainerId(id).setTimeout(graceSeconds).build());
  }
}
