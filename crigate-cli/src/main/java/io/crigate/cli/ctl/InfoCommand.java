package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.api.cri.v1.StatusResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "info", description = "Show the runtime's conditions, handlers and verbose info.")
final class InfoCommand extends CriAction {

  @Mixin DocumentOptions options;

  @Override
  int run(CriSession cri) {
    StatusResponse status = cri.runtime().status(StatusRequest.newBuilder().setVerbose(true).build());
    options.output.write(ProtoDocuments.withInfo(status, status.getInfoMap()), out());
    return 0;
  }
}
