package io.crigate.cli;

import io.crigate.cli.migrate.Migration;
import io.crigate.policy.seed.SeedFinding;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code crigate migrate}: a multi-cri or CRI Resource Manager command line, config file or
 * ConfigMaps as crigate's YAML on standard output; every setting that did not carry over goes to
 * standard error with the reason, and makes the exit status 1.
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {"Prints crigate's configuration for a multi-cri or CRI Resource Manager setup.",
        "  crigate migrate -- multi-cri -v 3 --socket-path /var/run/multi-cri.sock",
        "  crigate migrate --config /etc/cri-resmgr/fallback.cfg",
        "  crigate migrate --configmaps cri-resmgr-configmap.yaml",
        "Exit status 0 when every setting carried over, 1 when any was dropped, 2 on bad input."})
final class MigrateCommand implements Callable<Integer> {

  static final int EXIT_DROPPED = 1;
  static final int EXIT_BAD_INPUT = 2;

  @Spec
  CommandSpec spec;

  @ArgGroup(exclusive = true)
  Source source = new Source();

  static final class Source {
    @Option(names = "--config", paramLabel = "FILE", description = "a CRI Resource Manager configuration file (YAML sections or one option per line)")
    Path config;

    @Option(names = "--configmaps", paramLabel = "FILE", description = "cri-resmgr-config.* ConfigMaps (YAML, one or more documents)")
    Path configMaps;
  }

  @Parameters(paramLabel = "COMMAND-LINE", arity = "0..*",
      description = "a multi-cri or cri-resmgr command line, after --; its program name may be included")
  List<String> commandLine = List.of();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Migration migration;
    try {
      if (source.config != null) {
        migration = Migration.ofConfigFile(source.config, System.getenv());
      } else if (source.configMaps != null) {
        migration = Migration.ofConfigMaps(source.configMaps);
      } else if (!commandLine.isEmpty()) {
        migration = Migration.ofCommandLine(commandLine, System.getenv());
      } else {
        err.println("crigate migrate: give a command line after --, --config FILE or --configmaps FILE");
        return EXIT_BAD_INPUT;
      }
    } catch (UncheckedIOException | IllegalArgumentException e) {
      err.println("crigate migrate: " + e.getMessage());
      return EXIT_BAD_INPUT;
    }
    out.print(migration.yaml());
    out.flush();
    List<SeedFinding> dropped = migration.dropped();
    dropped.forEach(f -> err.println("dropped %s: %s".formatted(f.setting(), f.detail())));
    err.flush();
    return dropped.isEmpty() ? 0 : EXIT_DROPPED;
  }
}
