package io.crigate.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "inspect", description = "Show the status of containers (verbose).")
final class InspectCommand extends InspectAction {

  @Parameters(arity = "1..*", paramLabel = "CONTAINER-ID", description = "Container ids or unique prefixes.")
  List<String> containers;

  @Override
  List<String> targets() {
    return containers;
  }

  @Override
  JsonNode document(CriSession cri, String prefix) {
    ContainerStatusResponse status =
        cri.runtime()
            .containerStatus(
                ContainerStatusRequest.newBuilder()
                    .setContainerId(cri.containerId(prefix))
                    .setVerbose(true)
                    .build());
    return ProtoDocuments.withInfo(status, status.getInfoMap());
  }
}
