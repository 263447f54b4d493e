package io.crigate.cli;

import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.plugin.CrigatePlugin;
import io.crigate.interlink.plugin.PluginRoutes;
import io.crigate.interlink.seed.InterLinkConfigFile;
import io.crigate.spi.CrigateException;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code crigate interlink-plugin}: serves interLink's plugin API ({@code /create}, {@code /delete},
 * {@code /status}, {@code /getLogs}) in front of one backend of a crigate configuration file.
 */
@Command(
    name = "interlink-plugin",
    mixinStandardHelpOptions = true,
    description = "Serves the interLink plugin API (the 'sidecar' interLink calls) backed by one crigate backend: "
        + "each pod becomes a sandbox and containers there (Slurm jobs for a slurm backend). Default --listen 127.0.0.1:4000.")
final class InterlinkPluginCommand implements Callable<Integer> {

  static final String DEFAULT_LISTEN = "127.0.0.1:4000";

  @Spec
  CommandSpec spec;

  @Mixin
  ServerOptions server;

  @Mixin
  InProcessPlugin plugin;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    return Servers.runUntilStopped("interlink-plugin", err, new ArrayDeque<>(), running -> {
      if (!plugin.configured()) {
        throw new CrigateException.InvalidArgument("--config is required: the crigate configuration that defines the backend");
      }
      Map<String, String> env = System.getenv();
      Optional<InterLinkConfigFile> interLink = InterLinkConfigFile.fromEnvironment(env);
      interLink.ifPresent(file -> file.warnings(InterLinkConfigFile.Role.PLUGIN, env)
          .forEach(w -> err.println("crigate interlink-plugin: warning: " + w)));
      err.flush();
      interLink.flatMap(InterLinkConfigFile::backendType).ifPresent(plugin::preferType);
      var endpoint = server.endpoint(interLink.map(InterLinkConfigFile::pluginListen).orElse(DEFAULT_LISTEN));
      CrigatePlugin served = plugin.open(running);
      RunningServer http = HttpServers.start(endpoint, routes -> PluginRoutes.install(routes, served));
      running.push(http);
      LoggerFactory.getLogger(InterlinkPluginCommand.class).info("interLink plugin serving on {}{}", http.address(),
          endpoint.tokenFile() == null ? "" : " (bearer token required)");
    });
  }
}
