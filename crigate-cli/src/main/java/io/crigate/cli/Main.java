package io.crigate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code crigate} command; each capability contributes one subcommand. */
@Command(
    name = "crigate",
    mixinStandardHelpOptions = true,
    versionProvider = CrigateVersion.class,
    description = "A CRI gateway: routes kubelet CRI calls to containerd, CRI-O or batch systems.")
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The full command tree; tests execute it without exiting the JVM. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.addSubcommand(new ServeCommand());
    cli.addSubcommand(new io.crigate.cli.ctl.CtlCommand());
    cli.addSubcommand(new SimulateCommand());
    cli.addSubcommand(new ExtenderCommand());
    return cli;
  }
}
