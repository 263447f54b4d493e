package io.crigate.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.api.cri.v1.PodSandboxStatusRequest;
import io.crigate.api.cri.v1.PodSandboxStatusResponse;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "inspectp", description = "Show the status of pods (verbose).")
final class InspectpCommand extends InspectAction {

  @Parameters(arity = "1..*", paramLabel = "POD-ID", description = "Pod ids or unique prefixes.")
  List<String> pods;

  @Override
  List<String> targets() {
    return pods;
  }

  @Override
  JsonNode document(CriSession cri, String prefix) {
    PodSandboxStatusResponse status =
        cri.runtime()
            .podSandboxStatus(
                PodSandboxStatusRequest.newBuilder()
                    .setPodSandboxId(cri.podId(prefix))
                    .setVerbose(true)
                    .build());
    return ProtoDocuments.withInfo(status, status.getInfoMap());
  }
}
