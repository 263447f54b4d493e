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
    System.exit(SeedServe.execute(commandLine(), args, System.getenv()));
  }

  /** The full command tree; tests execute it without exiting the JVM. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.addSubcommand(new ServeCommand());
    cli.addSubcommand(new NriPluginCommand());
    cli.addSubcommand(new io.crigate.cli.ctl.CtlCommand());
    cli.addSubcommand(new SimulateCommand());
    cli.addSubcommand(new ExtenderCommand());
    cli.addSubcommand(new PoliciesCommand());
    cli.addSubcommand(new WebhookCommand());
    cli.addSubcommand(new InterlinkPluginCommand());
    cli.addSubcommand(new InterlinkApiCommand());
    cli.addSubcommand(new VirtualNodeCommand());
    cli.addSubcommand(new HooksReconcilerCommand());
    cli.addSubcommand(new MigrateCommand());
    cli.setParameterExceptionHandler(Main::usageError);
    return cli;
  }

  /**
   * A mistyped option gets one line naming it (and picocli's "did you mean"), not thirty lines of
   * usage that push the mistake off the screen; the usage is one {@code --help} away.
   */
  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    command.getErr().println(command.getColorScheme().errorText(
        command.getCommandSpec().qualifiedName() + ": " + e.getMessage()));
    CommandLine.UnmatchedArgumentException.printSuggestions(e, command.getErr());
    command.getErr().println("Run '" + command.getCommandSpec().qualifiedName() + " --help' for usage.");
    return command.getCommandSpec().exitCodeOnInvalidInput();
  }
}
