package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.ExecSyncRequest;
import io.crigate.api.cri.v1.ExecSyncResponse;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "exec",
    description = {
      "Run a command in a container and wait for it (ExecSync): prints its output and exits with"
          + " its exit code. With -i or -t, the command runs attached to this terminal over the"
          + " runtime's streaming server (Exec).",
      "Usage: exec [-i] [-t] CONTAINER-ID -- CMD [ARG...]"
    })
final class ExecCommand extends CriAction {

  /** Without --timeout a command may run long (a build, a copy); still, never wait forever. */
  private static final Duration UNLIMITED_COMMAND_DEADLINE = Duration.ofMinutes(10);

  @Parameters(index = "0", paramLabel = "CONTAINER-ID", description = "Container id or unique prefix.")
  String container;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "CMD", description = "Command and arguments.")
  List<String> command;

  @Option(names = {"-s", "--sync"}, description = "Accepted for crictl compatibility; exec is always synchronous.")
  boolean sync;

  @Option(names = "--timeout", description = "Seconds the command may run (default: 0, no limit).")
  long timeoutSeconds;

  @Option(names = {"-i", "--interactive"}, description = "Send this program's stdin to the command (streaming Exec).")
  boolean interactive;

  @Option(names = {"-t", "--tty"}, description = "Run the command on a terminal (streaming Exec).")
  boolean tty;

  /** Everything after the container id belongs to the command, even words that look like options. */
  @Spec(Spec.Target.SELF)
  void stopOptionsAtCommand(CommandSpec self) {
    self.parser().stopAtPositional(true);
  }

  @Override
  Duration defaultDeadline() {
    // The call must outlive the command it waits for.
    return timeoutSeconds > 0 ? DEFAULT_DEADLINE.plusSeconds(timeoutSeconds) : UNLIMITED_COMMAND_DEADLINE;
  }

  /** Stopping at the id leaves crictl's optional {@code --} separator in the command: drop it. */
  static List<String> withoutSeparator(List<String> command) {
    List<String> cmd =
        command.getFirst().equals("--") ? command.subList(1, command.size()) : command;
    if (cmd.isEmpty()) {
      throw new InvalidArgument("no command given after --");
    }
    return cmd;
  }

  @Override
  int run(CriSession cri) throws IOException {
    if (interactive || tty) {
      String url = cri.runtime().exec(ExecRequest.newBuilder().setContainerId(cri.containerId(container))
          .addAllCmd(withoutSeparator(command)).setStdin(interactive).setTty(tty).setStdout(true).setStderr(!tty)
          .build()).getUrl();
      return StreamSession.run(url, System.in, interactive, tty, out(), err());
    }
    ExecSyncResponse result =
        cri.runtime()
            .execSync(
                ExecSyncRequest.newBuilder()
                    .setContainerId(cri.containerId(container))
                    .addAllCmd(withoutSeparator(command))
                    .setTimeout(timeoutSeconds)
                    .build());
    out().print(result.getStdout().toString(StandardCharsets.UTF_8));
    err().print(result.getStderr().toString(StandardCharsets.UTF_8));
    return result.getExitCode();
  }
}
