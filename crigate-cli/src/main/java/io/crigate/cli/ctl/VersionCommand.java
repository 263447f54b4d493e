package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import picocli.CommandLine.Command;

@Command(name = "version", description = "Show the runtime's name and version.")
final class VersionCommand extends CriAction {

  /** The CRI API version this client speaks. */
  private static final String CLIENT_API_VERSION = "v1";

  @Override
  int run(CriSession cri) {
    VersionResponse version =
        cri.runtime().version(VersionRequest.newBuilder().setVersion(CLIENT_API_VERSION).build());
    out().println("Version:  " + version.getVersion());
    out().println("RuntimeName:  " + version.getRuntimeName());
    out().println("RuntimeVersion:  " + version.getRuntimeVersion());
    out().println("RuntimeApiVersion:  " + version.getRuntimeApiVersion());
    return 0;
  }
}
