package io.crigate.cli.ctl;

import java.nio.file.Path;
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
      EventsCommand.class,
      PortForwardCommand.class,
      ConfigCommand.class
    })
public final class CtlCommand {

  static final String DEFAULT_ENDPOINT = "unix:///run/crigate/crigate.sock";

  @Option(
      names = {"-r", "--runtime-endpoint"},
      description = "CRI endpoint (default: $CONTAINER_RUNTIME_ENDPOINT, else the config file's runtime-endpoint, else "
          + DEFAULT_ENDPOINT + ").")
  private String endpoint;

  @Option(
      names = {"-c", "--config"},
      defaultValue = "${env:CRI_CONFIG_FILE:-/etc/crictl.yaml}",
      description = "Client config file, crictl's format (default: $CRI_CONFIG_FILE or ${DEFAULT-VALUE}); see 'ctl config'.")
  private Path config;

  @Option(
      names = {"-t", "--timeout"},
      converter = GoDuration.class,
      description = "Deadline of each call, e.g. 10s or 2m (default: 2m for pull, 30s otherwise).")
  private Duration timeout;

  /** The flag, else $CONTAINER_RUNTIME_ENDPOINT, else the config file, else crigate's socket (crictl's order). */
  String endpoint() {
    if (endpoint != null) {
      return endpoint;
    }
    String fromEnvironment = System.getenv("CONTAINER_RUNTIME_ENDPOINT");
    if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
      return fromEnvironment;
    }
    return ClientConfig.load(config).get(ClientConfig.RUNTIME_ENDPOINT).orElse(DEFAULT_ENDPOINT);
  }

  /** The flag, else the config file's timeout (whole seconds; 0 is none). */
  Optional<Duration> timeout() {
    return timeout != null ? Optional.of(timeout) : ClientConfig.load(config).timeout();
  }

  Path configFile() {
    return config;
  }
}
