package io.crigate.cli;

import io.crigate.core.PluginEnvironment;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.server.StateDirLock;
import io.crigate.core.state.GatewayState;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.kube.PolicyConfigMaps;
import io.crigate.spi.CrigateException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate policies forget-configmap}: CRI Resource Manager's {@code --reset-config}. A node
 * resumes the policy ConfigMap it applied last before its API server answers; this is how an
 * administrator stops that for one start without unsetting {@code policy.kubernetes}, e.g. after
 * that ConfigMap took the node's CPUs somewhere they should not go. It takes the state directory's
 * lock, so it refuses while a crigate runs there: a running one would remember the ConfigMap again.
 */
@Command(
    name = "forget-configmap",
    mixinStandardHelpOptions = true,
    description = {
        "Forgets the policy ConfigMap this node applied last (CRI Resource Manager's --reset-config): the next start "
            + "serves the configuration file's policy until the API server answers.",
        "Run it while crigate is stopped. For nri-plugin, give its --state-dir (default /var/lib/crigate-nri)."})
final class ForgetConfigMapCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--config", paramLabel = "FILE", description = "serve's configuration file, for its stateDir.")
  String config;

  @Option(names = "--state-dir", paramLabel = "DIR", description = "The state directory (default: the configuration's, else /var/lib/crigate).")
  String stateDir;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String name = spec.qualifiedName();
    Path dir;
    try {
      dir = ConfigLoader.stateDir(new ConfigFlags(config, null, stateDir, null, null, null, null, null, null));
    } catch (CrigateException.InvalidArgument e) {
      err.println(name + ": " + e.getMessage());
      return ServeCommand.EXIT_BAD_CONFIG;
    }
    // Without a database there is nothing to forget, and taking the lock would create the directory.
    if (!Files.exists(dir.resolve(GatewayState.FILE_NAME))) {
      out.println("nothing to forget: no state database in " + dir);
      return 0;
    }
    try (StateDirLock lock = StateDirLock.acquire(dir); GatewayState state = GatewayState.open(dir)) {
      Optional<String> forgotten =
          PolicyConfigMaps.forgetRemembered(state.backendStore(PluginEnvironment.namespace(ActivePolicy.NAME)));
      out.println(forgotten
          .map(what -> "forgot the policy ConfigMap " + what
              + "; the next start serves the configuration file's policy until the API server answers")
          .orElse("nothing to forget: no policy ConfigMap is remembered in " + dir));
      return 0;
    } catch (CrigateException.FailedPrecondition e) {
      err.println(name + ": " + e.getMessage());
      return ServeCommand.EXIT_START_FAILED;
    }
  }
}
