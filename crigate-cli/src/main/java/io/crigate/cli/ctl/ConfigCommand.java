package io.crigate.cli.ctl;

import io.crigate.spi.CrigateException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "config",
    description = "Get and set the client configuration (crictl's file, --config): runtime-endpoint, timeout, ...")
final class ConfigCommand implements Callable<Integer> {

  @ParentCommand CtlCommand ctl;

  @Spec CommandSpec spec;

  @Option(names = "--get", paramLabel = "KEY", description = "Print the value of KEY.")
  String get;

  @Option(names = "--set", paramLabel = "KEY=VALUE[,KEY=VALUE]", split = ",",
      description = "Set keys; repeatable.")
  List<String> set = List.of();

  @Option(names = "--list", description = "Print every key that is set.")
  boolean list;

  @Parameters(arity = "0..2", paramLabel = "KEY VALUE", description = "Set KEY to VALUE, as crictl config KEY VALUE does.")
  List<String> positional = List.of();

  @Override
  public Integer call() {
    try {
      return run();
    } catch (CrigateException | UncheckedIOException e) {
      spec.commandLine().getErr().println("crigate ctl config: " + e.getMessage());
      return 1;
    } finally {
      spec.commandLine().getOut().flush();
      spec.commandLine().getErr().flush();
    }
  }

  private int run() {
    ClientConfig config = ClientConfig.load(ctl.configFile());
    List<String[]> changes = new ArrayList<>();
    for (String assignment : set) {
      int equals = assignment.indexOf('=');
      if (equals <= 0) {
        throw new CrigateException.InvalidArgument("--set takes KEY=VALUE, not '%s'".formatted(assignment));
      }
      changes.add(new String[] {assignment.substring(0, equals), assignment.substring(equals + 1)});
    }
    if (positional.size() == 1) {
      throw new CrigateException.InvalidArgument("config KEY VALUE: value of '%s' missing".formatted(positional.getFirst()));
    }
    if (positional.size() == 2) {
      changes.add(new String[] {positional.get(0), positional.get(1)});
    }
    if (get == null && !list && changes.isEmpty()) {
      throw new CrigateException.InvalidArgument("say what to do: --get KEY, --set KEY=VALUE, --list or KEY VALUE");
    }
    for (String[] change : changes) {
      config = config.with(change[0], change[1]);
    }
    ClientConfig updated = config;
    if (!changes.isEmpty()) {
      updated.save(ctl.configFile());
    }
    if (get != null) {
      ClientConfig.checkKey("config --get", get);
      spec.commandLine().getOut().println(updated.get(get).orElse(""));
    }
    if (list) {
      Table table = new Table("KEY", "VALUE");
      ClientConfig.keys().forEach(key -> updated.get(key).ifPresent(value -> table.row(key, value)));
      table.print(spec.commandLine().getOut());
    }
    return 0;
  }
}
