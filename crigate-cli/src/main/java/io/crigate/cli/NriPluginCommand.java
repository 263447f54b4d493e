package io.crigate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.core.AdjustmentPlugins;
import io.crigate.nri.NriPlugin;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate nri-plugin}: the adjustment engine inside containerd's (1.7+) or CRI-O's NRI, no
 * proxy in the CRI path. Started by hand or a DaemonSet it connects to the runtime's socket; started
 * by the runtime as a pre-installed plugin it is handed fd 3 and NRI_PLUGIN_NAME/IDX/SOCKET, which
 * win over the flags.
 */
@Command(
    name = "nri-plugin",
    mixinStandardHelpOptions = true,
    description = "Runs crigate's resource policy and hooks as an NRI plugin of containerd 1.7+ or CRI-O.")
final class NriPluginCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--config", paramLabel = "FILE", description = "crigate's YAML configuration; its policy and hooks sections are served. "
      + "A runtime's drop-in configuration (passed in Configure) wins over it.")
  String config;

  @Option(names = "--socket", paramLabel = "PATH", description = "The runtime's NRI socket (default /var/run/nri/nri.sock; NRI_PLUGIN_SOCKET wins).")
  String socket = NriPlugin.DEFAULT_SOCKET.toString();

  @Option(names = "--name", description = "Plugin name (default crigate; NRI_PLUGIN_NAME wins).")
  String name = "crigate";

  @Option(names = "--index", description = "Plugin index, two digits, the call order among plugins (default 50; NRI_PLUGIN_IDX wins).")
  String index = "50";

  @Option(names = "--state-dir", paramLabel = "DIR", description = "The plugins' durable state (default /var/lib/crigate-nri).")
  String stateDir = "/var/lib/crigate-nri";

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    NriPlugin.Settings settings = NriPlugin.Settings.fromEnvironment(System.getenv(), name, index, Path.of(socket));
    PluginMode mode;
    try {
      mode = PluginMode.start(settings, AdjustmentPluginsConfig::engine,
          config == null ? AdjustmentPlugins.NONE : AdjustmentPluginsConfig.engine(readConfig()), Path.of(stateDir));
    } catch (CrigateException.InvalidArgument e) {
      err.println("crigate nri-plugin: " + e.getMessage());
      return ServeCommand.EXIT_BAD_CONFIG;
    } catch (RuntimeException e) {
      err.println("crigate nri-plugin: cannot start: " + StartFailure.describe(e));
      return ServeCommand.EXIT_START_FAILED;
    }
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("crigate-nri-shutdown").unstarted(mode::close));
    mode.stopped().join();
    mode.close();
    return 0;
  }

  private JsonNode readConfig() {
    try {
      return new ObjectMapper(new YAMLFactory()).readTree(Path.of(config).toFile());
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("cannot read --config " + config + ": " + e.getMessage());
    }
  }
}
