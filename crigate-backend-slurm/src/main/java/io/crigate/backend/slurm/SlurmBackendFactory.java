package io.crigate.backend.slurm;

import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.InitContext;
import java.time.ZoneId;
import java.util.function.Function;

/** {@code type: slurm}: containers as Slurm batch jobs, over local commands, SSH or slurmrestd. */
public final class SlurmBackendFactory implements BackendFactory {

  @Override
  public String type() {
    return "slurm";
  }

  @Override
  public Backend create(InitContext context) {
    SlurmSettings settings = SlurmSettings.parse(context.name(), context.settings());
    SlurmClient client = switch (settings.transportKind()) {
      case "ssh" -> new CliSlurmClient(new SshCommandRunner(settings.ssh()), ZoneId.systemDefault());
      case "rest" -> new RestSlurmClient(settings.rest());
      default -> new CliSlurmClient(new LocalCommandRunner(), ZoneId.systemDefault());
    };
    Function<ClusterLogin, SlurmClient> connect = login -> new CliSlurmClient(
        new SshCommandRunner(login.ssh(settings.containerLogins().knownHostsFile())), ZoneId.systemDefault());
    SlurmBackend backend = new SlurmBackend(context.name(), settings, client, connect,
        new RecordStore(context.store()), LoginVault.in(context.stateDir()), context.clock());
    backend.serveStreams(context.streams());
    SlurmMetrics.in(context.metrics()).add(context.name(), backend);
    return backend;
  }
}
