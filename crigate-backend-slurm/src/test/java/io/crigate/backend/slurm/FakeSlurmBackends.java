package io.crigate.backend.slurm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Slurm backends over one {@link FakeSlurm} and one durable store in a temporary directory: opening
 * a second backend after closing the first is a crigate restart. The pollers' timed loop waits an
 * hour between polls, so a test decides when a poll happens ({@link #poll}).
 */
final class FakeSlurmBackends implements AutoCloseable {

  final FakeSlurm slurm = new FakeSlurm();
  private final Path dir;
  private final Clock clock;
  private final List<SlurmBackend> opened = new ArrayList<>();

  FakeSlurmBackends(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  FakeSlurmBackends(Path dir) {
    this(dir, Clock.systemUTC());
  }

  SlurmBackend open() {
    return open(settings(dir.resolve("work").toString()));
  }

  SlurmBackend open(ObjectNode settings) {
    Path state = dir.resolve("state");
    RecordStore records = new RecordStore(new FileDurableStore(state.resolve("store")));
    SlurmBackend backend = new SlurmBackend("fake", SlurmSettings.parse("fake", settings), slurm,
        login -> {
          throw new CrigateException.Unavailable("no cluster logins in these tests");
        }, records, LoginVault.in(state), clock);
    opened.add(backend);
    return backend;
  }

  static ObjectNode settings(String workDir) {
    return new ObjectMapper().createObjectNode().put("workDir", workDir).put("pollInterval", "1h");
  }

  /** One poll of the configured cluster, as the timed loop would run it. */
  static void poll(SlurmBackend backend) {
    backend.poller().pollNow();
  }

  Path logDir() {
    return dir.resolve("logs");
  }

  /** RunPodSandbox + CreateContainer of one container running {@code command}; returns {sandboxId, containerId}. */
  String[] create(SlurmBackend backend, String name, List<String> command) {
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod(name)).build())
        .getPodSandboxId();
    return new String[] {sandbox, createIn(backend, sandbox, name + "-main", command)};
  }

  String createIn(SlurmBackend backend, String sandbox, String name, List<String> command) {
    return backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(sandbox)
        .setConfig(SlurmCluster.container(name, command, Map.of())).build()).getContainerId();
  }

  PodSandboxConfig pod(String name) {
    return SlurmCluster.pod(name, logDir(), Map.of());
  }

  @Override
  public void close() {
    opened.forEach(SlurmBackend::close);
  }
}
