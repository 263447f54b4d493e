package io.crigate.interlink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.backend.slurm.SlurmBackendFactory;
import io.crigate.spi.Backend;
import io.crigate.spi.InitContext;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The shared single-node Slurm (exports in $CRIGATE_INFRA_DIR/env), reached through crigate's Slurm
 * backend over the local transport (or SSH). Test scope only: the plugin code itself knows only the SPI.
 */
public final class SlurmSite {

  /** The slurm backend opens no channels; every backend is given a loop all the same. Daemon threads. */
  private static final EventLoopGroup IO = EventLoops.epoll(1, "interlink-it-io");

  private SlurmSite() {}

  public static String env(String name) {
    String value = System.getenv(name);
    assertThat(value).as("%s is exported by the shared Slurm; source $CRIGATE_INFRA_DIR/env first", name).isNotBlank();
    return value;
  }

  public static Backend backend(Path state) throws IOException {
    return backend(state, settings().put("transport", "local"));
  }

  /** The same cluster reached over SSH as {@code user}, as a site logs crigate in with a cluster account. */
  public static Backend backendOverSsh(Path state, String user) throws IOException {
    ObjectNode settings = settings().put("transport", "ssh");
    settings.putObject("ssh").put("host", "127.0.0.1").put("port", Integer.parseInt(env("CRIGATE_SSH_PORT")))
        .put("user", user).put("privateKeyFile", env("CRIGATE_SSH_KEY")).put("knownHostsFile", env("CRIGATE_SSH_KNOWN_HOSTS"));
    return backend(state, settings);
  }

  private static ObjectNode settings() {
    return new ObjectMapper().createObjectNode().put("workDir", env("CRIGATE_SLURM_WORKDIR")).put("pollIntervalMillis", 300);
  }

  private static Backend backend(Path state, ObjectNode settings) throws IOException {
    java.nio.file.Files.createDirectories(state);
    return new SlurmBackendFactory().create(new InitContext("interlink-it", settings, state, new MemoryStore(),
        Clock.systemUTC(), IO));
  }

  /** {@code squeue} for one job name, all states: the job's state, or "" when Slurm has forgotten it. */
  public static String jobState(String jobName) throws IOException, InterruptedException {
    Process squeue = new ProcessBuilder("squeue", "--states=all", "--noheader", "--format=%T", "--name=" + jobName)
        .redirectErrorStream(true).start();
    String out = new String(squeue.getInputStream().readAllBytes()).strip();
    assertThat(squeue.waitFor()).as("squeue: %s", out).isZero();
    return out;
  }
}
