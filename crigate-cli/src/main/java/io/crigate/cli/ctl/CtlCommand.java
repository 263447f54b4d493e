package io.crigate.cli.ctl;

import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code crigate ctl}: a crictl-style client for any CRI endpoint (crigate itself, or containerd
 * directly). Global options go before the subcommand, as with crictl.
 */
@Command(
    name = "ctl",
    mixinStandardHelpOptions = true,
    description = "Talk CRI to crigate or any CRI runtime, in the manner of crictl.",
    subcommands = {
      VersionCommand.class,
      InfoCommand.class,
      PodsCommand.class,
      PsCommand.class,
      ImagesCommand.class,
      InspectpCommand.class,
      InspectCommand.class,
      InspectiCommand.class,
      ImageFsInfoCommand.class,
      RunpCommand.class,
      CreateCommand.class,
      RunCommand.class,
      StartCommand.class,
      StopCommand.class,
      StoppCommand.class,
      RmCommand.class,
      RmpCommand.class,
      PullCommand.class,
      RmiCommand.class,
      LogsCommand.class,
      ExecCommand.class,
      AttachCommand.class,
      StatsCommand.class,
      StatspCommand.class,
      UpdateCommand.class,
      EventsCommand.class
    })
public final class CtlCommand {

  @Option(
      names = {"-r", "--runtime-endpoint"},
      defaultValue = "${env:CONTAINER_RUNTIME_ENDPOINT:-unix:///run/crigate/crigate.sock}",
      description = "CRI endpoint (default: $CONTAINER_RUNTIME_ENDPOINT or ${DEFAULT-VALUE}).")
  private String endpoint;

  @Option(
      names = {"-t", "--timeout"},
      converter = GoDuration.class,
      description = "Deadline of each call, e.g. 10s or 2m (default: 2m for pull, 30s otherwise).")
  private Duration timeout;

  String endpoint() {
    return endpoint;
  }

  Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }
}
