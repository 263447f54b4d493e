package io.crigate.cli;

import java.util.List;
import java.util.function.Supplier;
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

  /** Every subcommand, in the order {@code --help} lists them. */
  private static final List<Supplier<Object>> SUBCOMMANDS = List.of(ServeCommand::new, NriPluginCommand::new,
      io.crigate.cli.ctl.CtlCommand::new, SimulateCommand::new, ExtenderCommand::new, PoliciesCommand::new,
      WebhookCommand::new, InterlinkPluginCommand::new, InterlinkApiCommand::new, VirtualNodeCommand::new,
      HooksReconcilerCommand::new, MigrateCommand::new);

  public static void main(String[] args) {
    System.exit(SeedServe.execute(Main::commandLine, args, System.getenv()));
  }

  /** The full command tree; tests execute it without exiting the JVM. */
  public static CommandLine commandLine() {
    return commandLine("");
  }

  /**
   * The tree with only subcommand {@code first} when the command line names one, else the full tree.
   * picocli reflects over every subcommand it is given, and its classes predate what the JVM's class
   * cache can hold, so the full tree costs ~0.5 s at start: more than a tenth of the 5 s a runtime gives
   * {@code nri-plugin} to register (docs/nri.md), and a third of what a kubelet waits for {@code serve}
   * after a restart (docs/benchmarks.md). A seed command line that turns {@code serve} into another
   * subcommand gets that one's tree (SeedServe).
   */
  static CommandLine commandLine(String first) {
    List<Object> commands = SUBCOMMANDS.stream().map(Supplier::get).toList();
    List<Object> named =
        commands.stream().filter(c -> c.getClass().getAnnotation(Command.class).name().equals(first)).toList();
    CommandLine cli = new CommandLine(new Main());
    (named.isEmpty() ? commands : named).forEach(cli::addSubcommand);
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
