package io.crigate.cli;

import io.crigate.policy.Policies;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code crigate policies}: the resource policies {@code policy.active} accepts; its subcommand acts
 * on a stopped node's remembered policy configuration.
 */
@Command(name = "policies", mixinStandardHelpOptions = true, description = "Lists the resource policies and what each does.",
    subcommands = ForgetConfigMapCommand.class)
final class PoliciesCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Policies.descriptions().forEach((name, description) -> out.printf("%-14s %s%n", name, description));
    out.flush();
    return 0;
  }
}
