package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.AttachRequest;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "attach",
    description = "Attach to a running container's output (and, with -i, its stdin) over the runtime's streaming server.")
final class AttachCommand extends CriAction {

  @Parameters(index = "0", paramLabel = "CONTAINER-ID", description = "Container id or unique prefix.")
  String container;

  @Option(names = {"-i", "--stdin"}, description = "Send this program's stdin to the container.")
  boolean stdin;

  @Option(names = {"-t", "--tty"}, description = "The container runs on a terminal.")
  boolean tty;

  @Override
  int run(CriSession cri) throws IOException {
    String url = cri.runtime().attach(AttachRequest.newBuilder().setContainerId(cri.containerId(container))
        .setStdin(stdin).setTty(tty).setStdout(true).setStderr(!tty).build()).getUrl();
    return StreamSession.run(url, System.in, stdin, tty, out(), err());
  }
}
