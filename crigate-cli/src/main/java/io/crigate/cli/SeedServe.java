package io.crigate.cli;

import io.crigate.cli.migrate.SeedArguments;
import io.crigate.cli.migrate.SeedArguments.SeedCommandLine;
import io.crigate.policy.seed.SeedFinding;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * Runs {@code crigate serve} with a multi-cri or CRI Resource Manager command line as written: the
 * seed flags are translated before picocli sees the rest. A flag that has lost its meaning costs one
 * warning line; one crigate cannot honour stops the start, naming it and why (exit 2).
 */
final class SeedServe {

  private SeedServe() {}

  /**
   * {@code commandLines} gives the command tree for a first argument ({@link Main#commandLine(String)}):
   * a seed line that turns into another subcommand gets that subcommand's tree, so {@code serve} never
   * builds the others.
   */
  static int execute(Function<String, CommandLine> commandLines, String[] args, Map<String, String> environment) {
    if (args.length == 0 || !args[0].equals("serve")) {
      return commandLines.apply(args.length == 0 ? "" : args[0]).execute(args);
    }
    SeedCommandLine seed = SeedArguments.translate(Arrays.asList(args).subList(1, args.length), environment);
    CommandLine cli = commandLines.apply("serve");
    CommandLine serve = cli.getSubcommands().get("serve");
    PrintWriter err = serve.getErr();
    seed.with(SeedFinding.Outcome.IGNORED).forEach(f -> err.println("crigate serve: warning: " + f.line()));
    List<SeedFinding> refused = seed.with(SeedFinding.Outcome.REFUSED);
    if (!refused.isEmpty()) {
      refused.forEach(f -> err.println("crigate serve: %s is refused: %s".formatted(f.setting(), f.detail())));
      err.flush();
      return ServeCommand.EXIT_BAD_CONFIG;
    }
    err.flush();
    if (seed.replacesServe()) {
      String[] replacement = seed.crigateArgs().toArray(String[]::new);
      return commandLines.apply(replacement[0]).execute(replacement);
    }
    ((ServeCommand) serve.getCommand()).translated = seed.settings();
    List<String> crigateArgs = new ArrayList<>();
    crigateArgs.add("serve");
    crigateArgs.addAll(seed.crigateArgs());
    return cli.execute(crigateArgs.toArray(String[]::new));
  }
}
