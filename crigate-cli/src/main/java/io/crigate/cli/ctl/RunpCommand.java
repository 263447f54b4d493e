package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "runp", description = "Run a pod from a pod config file (JSON or YAML); prints its id.")
final class RunpCommand extends CriAction {

  @Parameters(index = "0", paramLabel = "POD-CONFIG", description = "PodSandboxConfig file.")
  Path podConfig;

  @Option(names = "--runtime", description = "Runtime handler (RuntimeClass handler) to run it with.")
  String runtimeHandler = "";

  @Override
  int run(CriSession cri) {
    PodSandboxConfig config = ConfigFile.read(podConfig, PodSandboxConfig.newBuilder()).build();
    out().println(runPod(cri, config, runtimeHandler));
    return 0;
  }

  static String runPod(CriSession cri, PodSandboxConfig config, String runtimeHandler) {
    return cri.runtime()
        .runPodSandbox(
            RunPodSandboxRequest.newBuilder()
                .setConfig(config)
                .setRuntimeHandler(runtimeHandler)
                .build())
        .getPodSandboxId();
  }
}
