package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.StopPodSandboxRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "stopp", description = "Stop pods and all their containers.")
final class StoppCommand extends CriAction {

  @Parameters(arity = "1..*", paramLabel = "POD-ID", description = "Pod ids or unique prefixes.")
  List<String> pods;

  @Override
  int run(CriSession cri) {
    for (String prefix : pods) {
      String id = cri.podId(prefix);
      stop(cri, id);
      out().println("Stopped sandbox " + id);
    }
    return 0;
  }

  static void stop(CriSession cri, String id) {
    cri.runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(id).build());
  }
}
