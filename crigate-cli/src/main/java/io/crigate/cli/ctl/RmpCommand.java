package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.PodSandboxState;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

@Command(name = "rmp", description = "Remove pods and their containers; ready pods only with -f.")
final class RmpCommand extends RemoveAction<PodSandbox> {

  @Override
  String kind() {
    return "pod";
  }

  @Override
  Map<String, PodSandbox> list(CriSession cri) {
    return cri.pods().stream().collect(Collectors.toMap(PodSandbox::getId, Function.identity()));
  }

  @Override
  boolean isActive(PodSandbox pod) {
    return pod.getState() == PodSandboxState.SANDBOX_READY;
  }

  @Override
  void stop(CriSession cri, String id) {
    StoppCommand.stop(cri, id);
  }

  @Override
  String remove(CriSession cri, String id) {
    cri.runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(id).build());
    return "Removed sandbox " + id;
  }
}
