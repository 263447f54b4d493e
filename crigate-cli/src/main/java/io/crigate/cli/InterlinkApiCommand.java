package io.crigate.cli;

import io.crigate.interlink.api.ApiRoutes;
import io.crigate.interlink.api.PluginClient;
import io.crigate.interlink.http.BearerToken;
import io.crigate.interlink.seed.InterLinkConfigFile;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate interlink-api}: the API a virtual kubelet calls ({@code /create}, {@code /delete},
 * {@code /status}, {@code /getLogs}, {@code /pinglink}), forwarding to a plugin at {@code --plugin-url}
 * (crigate's or interLink's own), or with {@code --config} to crigate's plugin in this process.
 */
@Command(
    name = "interlink-api",
    mixinStandardHelpOptions = true,
    description = "Serves the interLink API for virtual kubelets and forwards to an interLink plugin: a remote one "
        + "(--plugin-url) or crigate's own in this process (--config). Default --listen 127.0.0.1:3000.")
final class InterlinkApiCommand implements Callable<Integer> {

  static final String DEFAULT_LISTEN = "127.0.0.1:3000";

  @Spec
  CommandSpec spec;

  @Mixin
  ServerOptions server;

  @Mixin
  InProcessPlugin inProcess;

  @Option(names = "--plugin-url", paramLabel = "URL",
      description = "The plugin to forward to: http(s)://host:port or unix:///path.sock (interLink's SidecarURL + port).")
  String pluginUrl;

  @Option(names = "--plugin-token-file", paramLabel = "FILE",
      description = "Bearer token a crigate plugin started with --token-file expects (interLink's own plugins take none).")
  Path pluginTokenFile;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    return Servers.runUntilStopped("interlink-api", err, new ArrayDeque<>(), running -> {
      Map<String, String> env = System.getenv();
      Optional<InterLinkConfigFile> interLink = InterLinkConfigFile.fromEnvironment(env);
      // with --config this process is the sidecar too, so the sidecar's keys apply as well
      interLink.ifPresent(file -> {
        List<String> warnings = new ArrayList<>(file.warnings(InterLinkConfigFile.Role.API, env));
        if (inProcess.configured()) {
          warnings.addAll(file.warnings(InterLinkConfigFile.Role.PLUGIN, env));
          file.backendType().ifPresent(inProcess::preferType);
        }
        warnings.forEach(w -> err.println("crigate interlink-api: warning: " + w));
      });
      err.flush();
      if (pluginUrl != null && inProcess.configured()) {
        throw new CrigateException.InvalidArgument("give exactly one of --plugin-url (a plugin elsewhere) and --config "
            + "(crigate's plugin in this process)");
      }
      String pluginUrl = this.pluginUrl != null || inProcess.configured() ? this.pluginUrl
          : interLink.map(InterLinkConfigFile::pluginUrl).orElseThrow(() -> new CrigateException.InvalidArgument(
              "give exactly one of --plugin-url (a plugin elsewhere) and --config (crigate's plugin in this process), "
                  + "or INTERLINKCONFIGPATH naming interLink's InterLinkConfig.yaml (SidecarURL and its port)"));
      var endpoint = server.endpoint(interLink.map(InterLinkConfigFile::apiListen).orElse(DEFAULT_LISTEN));
      PluginApi plugin;
      if (pluginUrl != null) {
        BearerToken token = pluginTokenFile == null ? null : new BearerToken(pluginTokenFile);
        PluginClient client = new PluginClient(pluginUrl, token == null ? null : token::header);
        running.push(client);
        plugin = client;
      } else {
        plugin = inProcess.open(running);
      }
      RunningServer http = HttpServers.start(endpoint, routes -> ApiRoutes.install(routes, plugin));
      running.push(http);
      LoggerFactory.getLogger(InterlinkApiCommand.class).info("interLink API serving on {}, forwarding to {}",
          http.address(), pluginUrl != null ? pluginUrl : "crigate's plugin in this process");
    });
  }
}
