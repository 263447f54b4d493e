package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Issue 16: what a pod author could make the daemon do, tried against the real Slurm. */
class SecurityIT {

  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final List<SlurmBackend> backends = new ArrayList<>();
  private final List<Runnable> cleanups = new ArrayList<>();

  @AfterEach
  void close() {
    cleanups.forEach(Runnable::run);
    backends.forEach(SlurmBackend::close);
  }

  private SlurmBackend backend(Path state) {
    SlurmBackend backend = SlurmCluster.backend(settings(Transport.LOCAL), state);
    backends.add(backend);
    return backend;
  }

  private String[] createAndRemoveLater(SlurmBackend backend, String name, ContainerConfig container) {
    String[] ids = create(backend, pod(name, tmp.resolve("logs"), Map.of()), container);
    cleanups.add(() -> backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build()));
    return ids;
  }

  private static String unique(String what) {
    return what + "-" + HexFormat.of().toHexDigits(UUID.randomUUID().getLeastSignificantBits());
  }

  private void awaitLogDone(Path state, String id) {
    await().atMost(JOB_TIMEOUT).until(() -> new RecordStore(new FileDurableStore(state.resolve("store"))).log(id).done());
  }

  /** Item 2: env values named like secrets are sealed at rest, and still reach a job planned after a restart. */
  @Test
  void secretNamedVariablesAreStoredSealedAndReachTheJobAfterARestart() throws Exception {
    Path state = tmp.resolve("state");
    String password = unique("pw");
    String token = unique("tok");
    SlurmBackend first = backend(state);
    String[] ids = createAndRemoveLater(first, "sealed", container("main",
        List.of("/bin/sh", "-c", "echo \"got $DB_PASSWORD $API_TOKEN $PLAIN\""),
        Map.of("DB_PASSWORD", password, "API_TOKEN", token, "PLAIN", "visible")));

    ContainerConfig stored = ContainerConfig.parseFrom(
        new RecordStore(new FileDurableStore(state.resolve("store"))).containers().get(ids[1]).config());
    assertThat(stored.getEnvsList()).extracting(KeyValue::getKey).contains("DB_PASSWORD", "API_TOKEN", "PLAIN");
    assertThat(stored.toByteString().toStringUtf8()).doesNotContain(password).doesNotContain(token).contains("visible");
    first.close();

    // a new backend has no planned job in memory: it plans from the stored, sealed config
    SlurmBackend second = backend(state);
    cleanups.clear();
    cleanups.add(() -> second.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build()));
    start(second, ids[1]);
    await().atMost(JOB_TIMEOUT).until(() -> status(second, ids[1]).getState() == ContainerState.CONTAINER_EXITED);
    awaitLogDone(state, ids[1]);
    assertThat(Files.readString(tmp.resolve("logs/main/0.log"))).contains("got " + password + " " + token + " visible");
  }

  /** Item 3: a job that swaps its output file for a link to a secret file never gets that file into its log. */
  @Test
  void aJobThatSwapsItsOutputForALinkNeverGetsTheLinkedFileIntoItsLog() throws Exception {
    String secret = unique("shadow-line");
    Path secretFile = Files.writeString(tmp.resolve("secret"), secret + "\n");
    Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
    Path state = tmp.resolve("state");
    SlurmBackend backend = backend(state);
    String[] ids = createAndRemoveLater(backend, "swap", container("main", List.of("/bin/sh", "-c",
        "echo before; ln -sf '" + secretFile + "' \"$(readlink /proc/$$/fd/1)\"; sleep 2; echo after"), Map.of()));

    start(backend, ids[1]);
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, ids[1]).getState() == ContainerState.CONTAINER_EXITED);
    awaitLogDone(state, ids[1]);

    Path job = Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0], ids[1], "stdout");
    assertThat(Files.isSymbolicLink(job)).as("the job did replace its output by a link").isTrue();
    Path log = tmp.resolve("logs/main/0.log");
    assertThat(Files.exists(log) ? Files.readString(log) : "").doesNotContain(secret);
  }

  /**
   * Item 6: ExecSync output is cut at 16 MiB per stream, as containerd cuts it, and the reply says
   * so; before, {@code head -c 50000000 /dev/zero} ran the daemon out of heap. The backend keeps
   * serving afterwards.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = Transport.class, names = {"LOCAL", "SSH"})
  void execSyncOutputIsCappedAt16MiBPerStreamAndSaysSo(Transport transport) {
    SlurmBackend backend = SlurmCluster.backend(settings(transport), tmp.resolve("state"));
    backends.add(backend);
    String[] ids = createAndRemoveLater(backend, "flood", container("main", List.of("sleep", "300"), Map.of()));
    start(backend, ids[1]);
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, ids[1]).getMessage().contains(" RUNNING"));

    ExecSyncResponse both = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1]).setTimeout(60)
        .addAllCmd(List.of("/bin/sh", "-c", "head -c 50000000 /dev/zero; head -c 20000000 /dev/zero >&2")).build());
    assertThat(both.getExitCode()).isZero();
    assertThat(both.getStdout().size()).isEqualTo(CappedOutput.LIMIT);
    // 16 MiB of the command's own stderr, then one line per cut stream
    assertThat(both.getStderr().size()).isGreaterThan(CappedOutput.LIMIT).isLessThan(CappedOutput.LIMIT + 1024);
    String notices = both.getStderr().substring(CappedOutput.LIMIT).toStringUtf8();
    assertThat(notices).contains("stdout truncated at 16 MiB, " + (50_000_000 - CappedOutput.LIMIT) + " more bytes dropped")
        .contains("stderr truncated at 16 MiB, " + (20_000_000 - CappedOutput.LIMIT) + " more bytes dropped");

    // a probe that never stops writing: ended by its timeout, its output cut all the same
    ExecSyncResponse yes = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1]).setTimeout(2)
        .addCmd("yes").build());
    assertThat(yes.getExitCode()).isEqualTo(124);
    assertThat(yes.getStdout().size()).isLessThanOrEqualTo(CappedOutput.LIMIT);

    ExecSyncResponse small = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1])
        .addAllCmd(List.of("echo", "still-serving")).build());
    assertThat(small.getStdout().toStringUtf8()).isEqualTo("still-serving\n");
    assertThat(small.getStderr().isEmpty()).isTrue();
    assertThat(status(backend, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
  }

  /** Item 12: StopContainer's timeout is any int64; one beyond the clock's range used to give INTERNAL. */
  @Test
  void aStopWithTheLargestTimeoutStopsTheJobOnItsTerm() {
    SlurmBackend backend = backend(tmp.resolve("state"));
    String[] ids = createAndRemoveLater(backend, "huge-stop",
        container("main", List.of("/bin/sh", "-c", "echo up; exec sleep 300"), Map.of()));
    start(backend, ids[1]);
    // Slurm reports RUNNING once the node is allocated, before the batch script runs; a TERM sent in
    // that gap reaches no process, and with an endless timeout the stop would then wait for the job.
    Path log = tmp.resolve("logs/main/0.log");
    await().atMost(JOB_TIMEOUT).until(() -> Files.exists(log) && Files.readString(log).contains("up"));

    backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(ids[1]).setTimeout(Long.MAX_VALUE).build());

    assertThat(status(backend, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
  }
}
