package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.InitContext;
import io.crigate.spi.Streams;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * The real single-node Slurm that scripts/infra/slurm-up.sh starts, as seen through its exports
 * in $CRIGATE_INFRA_DIR/env; builds backends for each transport and the CRI configs tests use.
 */
final class SlurmCluster {

  enum Transport { LOCAL, SSH, REST }

  private static final ObjectMapper JSON = new ObjectMapper();

  private SlurmCluster() {}

  static String env(String name) {
    String value = System.getenv(name);
    assertThat(value).as("%s is exported by scripts/infra/slurm-up.sh; source $CRIGATE_INFRA_DIR/env first", name)
        .isNotBlank();
    return value;
  }

  static ObjectNode settings(Transport transport) {
    ObjectNode settings = JSON.createObjectNode();
    settings.put("workDir", env("CRIGATE_SLURM_WORKDIR"));
    settings.put("pollInterval", "300ms");
    switch (transport) {
      case LOCAL -> settings.put("transport", "local");
      case SSH -> {
        // a cluster account, as a site gives crigate: its jobs are not root's (sshd takes the infra's key for any user)
        settings.put("transport", "ssh");
        settings.putObject("ssh").put("host", "127.0.0.1").put("port", Integer.parseInt(env("CRIGATE_SSH_PORT")))
            .put("user", env("CRIGATE_SSH_PASSWORD_USER")).put("privateKeyFile", env("CRIGATE_SSH_KEY"))
            .put("knownHostsFile", env("CRIGATE_SSH_KNOWN_HOSTS"));
      }
      case REST -> {
        settings.put("transport", "rest");
        settings.putObject("rest").put("url", env("CRIGATE_SLURMRESTD_URL")).put("apiVersion", "v0.0.38")
            .put("user", env("CRIGATE_SLURM_JWT_USER")).put("tokenFile", env("CRIGATE_SLURM_JWT_FILE"));
      }
    }
    return settings;
  }

  /** The slurm backend opens no channels; the loop is there because every backend is given one. Daemon threads. */
  private static final EventLoopGroup IO = EventLoops.epoll(1, "slurm-it-io");

  static SlurmBackend backend(ObjectNode settings, Path state) {
    return backend(settings, state, Clock.systemUTC());
  }

  static SlurmBackend backend(ObjectNode settings, Path state, Clock clock) {
    return (SlurmBackend) new SlurmBackendFactory().create(
        new InitContext("slurm-it", settings, state, new FileDurableStore(state.resolve("store")), clock, IO));
  }

  /** A backend offered {@code streams} as its streaming server, as serve offers crigate's. */
  static SlurmBackend backend(ObjectNode settings, Path state, Streams streams) {
    return (SlurmBackend) new SlurmBackendFactory().create(new InitContext("slurm-it", settings, state,
        new FileDurableStore(state.resolve("store")), Clock.systemUTC(), IO, streams, new PrometheusRegistry()));
  }

  /**
   * A backend on the local transport whose process "dies" right after each sbatch was accepted,
   * before the job id is stored; a second backend on the same state is the restarted crigate.
   */
  static SlurmBackend crashingAfterSubmit(ObjectNode settings, Path state) {
    RecordStore records = new RecordStore(new FileDurableStore(state.resolve("store")));
    SlurmClient client = new CrashAfterSubmit(new CliSlurmClient(new LocalCommandRunner(), ZoneId.systemDefault()));
    return new SlurmBackend("slurm-it", SlurmSettings.parse("slurm-it", settings), client, login -> {
      throw new IllegalStateException("no cluster logins here");
    }, records, LoginVault.in(state), Clock.systemUTC());
  }

  static PodSandboxConfig pod(String name, Path logDir, Map<String, String> annotations) {
    return PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("it").setUid(name + "-uid"))
        .setLogDirectory(logDir.toString())
        .putAllAnnotations(annotations)
        .build();
  }

  static ContainerConfig container(String name, List<String> command, Map<String, String> env) {
    ContainerConfig.Builder config = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName(name))
        .setImage(ImageSpec.newBuilder().setImage("busybox"))
        .addAllCommand(command)
        .setLogPath(name + "/0.log");
    env.forEach((key, value) -> config.addEnvs(KeyValue.newBuilder().setKey(key)
        .setValue(com.google.protobuf.ByteString.copyFromUtf8(value))));
    return config.build();
  }

  /** RunPodSandbox + CreateContainer; returns {sandboxId, containerId}. */
  static String[] create(SlurmBackend backend, PodSandboxConfig pod, ContainerConfig container) {
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build()).getPodSandboxId();
    String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(sandbox)
        .setConfig(container).setSandboxConfig(pod).build()).getContainerId();
    return new String[] {sandbox, id};
  }

  static ContainerStatus status(SlurmBackend backend, String id) {
    return backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build()).getStatus();
  }

  static void start(SlurmBackend backend, String id) {
    backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
  }

  /** The ids of the jobs Slurm knows by this name, finished ones included. */
  static List<String> jobsNamed(String name) throws Exception {
    Process squeue = new ProcessBuilder("squeue", "--noheader", "--states=all", "--name=" + name, "--format=%i").start();
    String out = new String(squeue.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(squeue.waitFor()).isZero();
    return out.lines().filter(line -> !line.isBlank()).toList();
  }
}
