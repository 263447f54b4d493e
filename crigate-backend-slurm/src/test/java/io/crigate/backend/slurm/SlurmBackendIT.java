package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The slurm backend against the real single-node Slurm, on each transport. */
class SlurmBackendIT {

  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern CRI_LINE = Pattern.compile(
      "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z (stdout|stderr) [PF] .*");

  @TempDir Path tmp;
  private final List<SlurmBackend> backends = new ArrayList<>();

  private SlurmBackend backend(SlurmCluster.Transport transport) {
    return backend(settings(transport), tmp.resolve("state"));
  }

  private SlurmBackend backend(ObjectNode settings, Path state) {
    SlurmBackend backend = SlurmCluster.backend(settings, state);
    backends.add(backend);
    return backend;
  }

  @AfterEach
  void close() {
    backends.forEach(SlurmBackend::close);
  }

  private ContainerStatus awaitExited(SlurmBackend backend, String id) {
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, id).getState() == ContainerState.CONTAINER_EXITED);
    return status(backend, id);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SlurmCluster.Transport.class)
  void lifecycleStreamsLogsAndReportsCompletion(SlurmCluster.Transport transport) throws Exception {
    SlurmBackend backend = backend(transport);
    String[] ids = create(backend, pod("life", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c", "echo out-line; echo err-line >&2; printf no-newline"), Map.of()));
    assertThat(status(backend, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_CREATED);

    start(backend, ids[1]);
    ContainerStatus done = awaitExited(backend, ids[1]);

    assertThat(done.getExitCode()).isZero();
    assertThat(done.getReason()).isEqualTo("Completed");
    assertThat(done.getFinishedAt()).isGreaterThanOrEqualTo(done.getStartedAt());
    Path log = tmp.resolve("logs/main/0.log");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && Files.readString(log).contains("no-newline"));
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).allMatch(line -> CRI_LINE.matcher(line).matches());
    assertThat(lines).anyMatch(line -> line.endsWith(" stdout F out-line"))
        .anyMatch(line -> line.endsWith(" stderr F err-line"))
        .anyMatch(line -> line.endsWith(" stdout F no-newline"));
    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .anySatisfy(c -> {
          assertThat(c.getId()).isEqualTo(ids[1]);
          assertThat(c.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
        });

    backend.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    assertThat(Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0])).doesNotExist();
    assertThatThrownBy(() -> status(backend, ids[1])).isInstanceOf(CrigateException.NotFound.class);
  }

  /**
   * A site logs crigate in as a cluster account, not root: over SSH, or with a slurmrestd token for
   * that account. Its jobs open their output in the container's directory as that account, which
   * crigate (root here) made. Before crigate handed the directory over, slurmd refused ("Could not
   * open stdout file: Permission denied") and every job failed at its start.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"SSH", "REST"})
  void aBackendLoggedInAsAClusterAccountRunsItsJobsAndStreamsTheirOutput(SlurmCluster.Transport transport) throws Exception {
    String user = env("CRIGATE_SSH_PASSWORD_USER"); // sshd takes the infra's key for any user
    ObjectNode settings = settings(transport);
    if (transport == SlurmCluster.Transport.SSH) {
      ((ObjectNode) settings.get("ssh")).put("user", user);
    } else {
      ((ObjectNode) settings.get("rest")).put("user", user).put("tokenFile", tokenFor(user, 600).toString());
    }
    SlurmBackend backend = backend(settings, tmp.resolve("state"));
    String[] ids = create(backend, pod("svc", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c", "echo ran as $(id -un)"), Map.of()));

    start(backend, ids[1]);
    ContainerStatus done = awaitExited(backend, ids[1]);

    assertThat(done.getExitCode()).as(done.getMessage()).isZero();
    Path log = tmp.resolve("logs/main/0.log");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && Files.readString(log).contains("ran as " + user));
    backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    assertThat(Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0])).doesNotExist();
  }

  /** A slurmrestd token for {@code user}, valid for {@code seconds}, in a file of its own. */
  private Path tokenFor(String user, int seconds) throws Exception {
    String issued = new String(new ProcessBuilder("scontrol", "token", "username=" + user, "lifespan=" + seconds)
        .start().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return Files.writeString(tmp.resolve(user + "-" + seconds + ".token"), issued.substring(issued.indexOf('=') + 1));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SlurmCluster.Transport.class)
  void failingJobReportsItsExitCode(SlurmCluster.Transport transport) {
    SlurmBackend backend = backend(transport);
    String[] ids = create(backend, pod("fail", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c", "exit 7"), Map.of()));
    start(backend, ids[1]);

    ContainerStatus done = awaitExited(backend, ids[1]);

    assertThat(done.getExitCode()).isEqualTo(7);
    assertThat(done.getReason()).isEqualTo("Error");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SlurmCluster.Transport.class)
  void stopCancelsARunningJob(SlurmCluster.Transport transport) {
    SlurmBackend backend = backend(transport);
    String[] ids = create(backend, pod("stop", tmp.resolve("logs"), Map.of()),
        container("main", List.of("sleep", "300"), Map.of()));
    start(backend, ids[1]);
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, ids[1]).getMessage().contains(" RUNNING"));

    backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(ids[1]).setTimeout(2).build());

    ContainerStatus stopped = status(backend, ids[1]);
    assertThat(stopped.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
    assertThat(stopped.getReason()).isEqualTo("Cancelled");
    // sleep dies of the SIGTERM: 128 + 15
    assertThat(stopped.getExitCode()).isEqualTo(143);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SlurmCluster.Transport.class)
  void hostileArgumentsAndEnvironmentReachTheJobByteForByte(SlurmCluster.Transport transport) throws Exception {
    List<String> hostile = List.of("$(touch /tmp/crigate-pwned)", "`id`", "'", "\"", "'\"'\"", "a\nb\n", "; exit 9",
        "&& false", "ünïcødé ☃ 𝄞", "\\", "$HOME", "", " lead and trail ", "x".repeat(100_000), "--", "-n", "%s%n");
    String hostileEnv = "$(id) `id` ' \" \n ; | & > < * ? ☃";
    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
        "printf '%s\\0' \"$@\" > argv.bin; printf '%s' \"$HOSTILE\" > env.bin", "sh"));
    command.addAll(hostile);
    SlurmBackend backend = backend(transport);
    String[] ids = create(backend, pod("hostile", tmp.resolve("logs"), Map.of()),
        container("main", command, Map.of("HOSTILE", hostileEnv)));
    start(backend, ids[1]);

    assertThat(awaitExited(backend, ids[1]).getReason()).isEqualTo("Completed");

    Path dir = Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0], ids[1]);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (String arg : hostile) {
      expected.writeBytes(arg.getBytes(StandardCharsets.UTF_8));
      expected.write(0);
    }
    assertThat(Files.readAllBytes(dir.resolve("argv.bin"))).isEqualTo(expected.toByteArray());
    assertThat(Files.readAllBytes(dir.resolve("env.bin"))).isEqualTo(hostileEnv.getBytes(StandardCharsets.UTF_8));
    assertThat(Path.of("/tmp/crigate-pwned")).doesNotExist();
  }

  @Test
  void reservedVariablesNeverReachTheJob() throws Exception {
    SlurmBackend backend = backend(SlurmCluster.Transport.LOCAL);
    String[] ids = create(backend, pod("reserved", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c", "env > env.txt"),
            Map.of("CLUSTER_TOKEN", "s3cret-pw", "JOB_QUEUE", "debug", "MPI_FLAGS_X", "kept", "VISIBLE", "yes")));
    start(backend, ids[1]);
    assertThat(awaitExited(backend, ids[1]).getReason()).isEqualTo("Completed");

    Path dir = Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0], ids[1]);
    String env = Files.readString(dir.resolve("env.txt"));
    assertThat(env).contains("VISIBLE=yes").contains("MPI_FLAGS_X=kept")
        .doesNotContain("CLUSTER_TOKEN").doesNotContain("s3cret-pw").doesNotContain("JOB_QUEUE");
    assertThat(storedBatchScript(SlurmClient.NAME_PREFIX + ids[1])).contains("export VISIBLE=")
        .doesNotContain("s3cret-pw");
  }

  @Test
  void execSyncRunsInsideTheJobAllocation() {
    SlurmBackend backend = backend(SlurmCluster.Transport.LOCAL);
    String[] ids = create(backend, pod("exec", tmp.resolve("logs"), Map.of()),
        container("main", List.of("sleep", "300"), Map.of()));
    start(backend, ids[1]);
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, ids[1]).getMessage().contains(" RUNNING"));

    ExecSyncResponse response = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1])
        .addAllCmd(List.of("/bin/sh", "-c", "echo in-job $SLURM_JOB_ID; exit 3")).build());

    assertThat(response.getExitCode()).isEqualTo(3);
    assertThat(response.getStdout().toStringUtf8()).startsWith("in-job ");
    // ExecSync's timeout ends the command on the node: exit 124, as coreutils timeout reports it
    ExecSyncResponse timedOut = backend.execSync(ExecSyncRequest.newBuilder().setContainerId(ids[1])
        .addAllCmd(List.of("/bin/sh", "-c", "echo started; exec sleep 60")).setTimeout(1).build());
    assertThat(timedOut.getExitCode()).isEqualTo(124);
    assertThat(timedOut.getStdout().toStringUtf8()).isEqualTo("started\n");
    // Interactive exec needs crigate's streaming server, which this backend was built without.
    assertThatThrownBy(() -> backend.exec(ExecRequest.newBuilder().setContainerId(ids[1]).addCmd("sh").build()))
        .isInstanceOf(CrigateException.Unimplemented.class).hasMessageContaining("streaming server");
    assertThatThrownBy(() -> backend.exec(ExecRequest.getDefaultInstance()))
        .isInstanceOf(CrigateException.NotFound.class);
    backend.stopContainer(StopContainerRequest.newBuilder().setContainerId(ids[1]).setTimeout(0).build());
    assertThat(status(backend, ids[1]).getReason()).isEqualTo("Cancelled");
  }

  /** Issue #3, item 9: a crash between sbatch and storing the job id leaves neither duplicate nor orphan. */
  @Test
  void crashBetweenSubmitAndPersistIsReconciledByJobName() throws Exception {
    Path state = tmp.resolve("crash-state");
    SlurmBackend first = SlurmCluster.crashingAfterSubmit(settings(SlurmCluster.Transport.LOCAL), state);
    backends.add(first);
    String[] ids = create(first, pod("crash", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c", "sleep 2; echo survived"), Map.of()));
    assertThatThrownBy(() -> start(first, ids[1])).hasMessageContaining("simulated crash");
    first.close();

    SlurmBackend second = backend(settings(SlurmCluster.Transport.LOCAL), state);
    assertThat(status(second, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThatThrownBy(() -> start(second, ids[1])).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("already started");
    ContainerStatus done = awaitExited(second, ids[1]);

    assertThat(done.getReason()).isEqualTo("Completed");
    assertThat(jobsNamed(SlurmClient.NAME_PREFIX + ids[1])).hasSize(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(tmp.resolve("logs/main/0.log"))
        && Files.readString(tmp.resolve("logs/main/0.log")).contains("stdout F survived"));
  }

  /**
   * Issue 16 item 9: after a crash between sbatch and storing the job id, Slurm may no longer know
   * the job by its name (purged from accounting; slurmrestd lists live jobs only). Renaming the job
   * makes real Slurm forget it that way. The container must then be exited with reason Unknown,
   * and never submitted a second time.
   */
  @Test
  void aSubmissionSlurmNoLongerKnowsIsReportedUnknownAndNeverSubmittedAgain() throws Exception {
    Path state = tmp.resolve("lost-state");
    SlurmBackend first = SlurmCluster.crashingAfterSubmit(settings(SlurmCluster.Transport.LOCAL), state);
    backends.add(first);
    String[] ids = create(first, pod("lost", tmp.resolve("logs"), Map.of()),
        container("main", List.of("sleep", "300"), Map.of()));
    assertThatThrownBy(() -> start(first, ids[1])).hasMessageContaining("simulated crash");
    first.close();
    List<String> submitted = jobsNamed(SlurmClient.NAME_PREFIX + ids[1]);
    assertThat(submitted).hasSize(1);
    String forgotten = "forgotten-" + ids[1].substring(0, 12);
    try {
      scontrol("update", "JobId=" + submitted.getFirst().strip(), "JobName=" + forgotten);

      SlurmBackend second = backend(settings(SlurmCluster.Transport.LOCAL), state);
      ContainerStatus lost = awaitExited(second, ids[1]);
      assertThat(lost.getReason()).isEqualTo("Unknown");
      assertThat(lost.getExitCode()).isEqualTo(255);
      assertThatThrownBy(() -> start(second, ids[1])).isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessageContaining("Unknown");
      assertThat(jobsNamed(SlurmClient.NAME_PREFIX + ids[1])).isEmpty();
      second.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    } finally {
      new ProcessBuilder("scancel", "--name=" + forgotten).start().waitFor();
    }
  }

  private static void scontrol(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("scontrol"));
    argv.addAll(List.of(args));
    Process scontrol = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(scontrol.waitFor()).as(out).isZero();
  }

  /** The kubelet rotates a log by renaming it away and calling ReopenContainerLog. */
  @Test
  void reopenAfterRotationWritesLaterOutputToAFreshFileAtTheLogPath() throws Exception {
    SlurmBackend backend = backend(SlurmCluster.Transport.LOCAL);
    // The job waits for a file the test creates after the rotation, so "after" cannot race it.
    String[] ids = create(backend, pod("rotate", tmp.resolve("logs"), Map.of()),
        container("main", List.of("/bin/sh", "-c",
            "echo before; while [ ! -e rotated ]; do sleep 0.2; done; echo after; echo after-err >&2"), Map.of()));
    start(backend, ids[1]);
    Path log = tmp.resolve("logs/main/0.log");
    await().atMost(JOB_TIMEOUT).until(() -> Files.exists(log) && Files.readString(log).contains("before"));

    Path rotated = tmp.resolve("logs/main/0.log.20261122-021500");
    Files.move(log, rotated);
    backend.reopenContainerLog(ReopenContainerLogRequest.newBuilder().setContainerId(ids[1]).build());
    assertThat(log).exists().isEmptyFile();
    Files.createFile(Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0], ids[1], "rotated"));

    assertThat(awaitExited(backend, ids[1]).getReason()).isEqualTo("Completed");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(log).contains("after-err"));
    List<String> fresh = Files.readAllLines(log);
    assertThat(fresh).allMatch(line -> CRI_LINE.matcher(line).matches())
        .anyMatch(line -> line.endsWith(" stdout F after"))
        .anyMatch(line -> line.endsWith(" stderr F after-err"))
        .noneMatch(line -> line.contains("before"));
    assertThat(Files.readAllLines(rotated)).hasSize(1).allMatch(line -> line.endsWith(" stdout F before"));
  }

  /**
   * slurmrestd 22.05 answers a token slurmctld refuses with HTTP 500 and an outage's error; an
   * expired token, the usual refusal, is recognised before the call: PERMISSION_DENIED, and nothing
   * is left marked as submitted.
   */
  @Test
  void anExpiredSlurmrestdTokenIsPermissionDenied() throws Exception {
    Path token = tokenFor(env("CRIGATE_SLURM_JWT_USER"), 1);
    String jwt = Files.readString(token);
    ObjectNode settings = settings(SlurmCluster.Transport.REST);
    ((ObjectNode) settings.get("rest")).put("tokenFile", token.toString());
    SlurmBackend backend = backend(settings, tmp.resolve("state"));
    String[] ids = create(backend, pod("refused", tmp.resolve("logs"), Map.of()),
        container("main", List.of("true"), Map.of()));
    // lifespan=1: wait until the token's own exp claim has passed
    await().atMost(JOB_TIMEOUT).until(() ->
        catchThrowable(() -> SlurmToken.usable(jwt, "it", java.time.Instant.now())) != null);

    assertThatThrownBy(() -> start(backend, ids[1])).isInstanceOf(CrigateException.PermissionDenied.class)
        .hasMessageContaining("expired at");
    assertThat(status(backend, ids[1]).getState()).isEqualTo(ContainerState.CONTAINER_CREATED);
  }

  @Test
  void badJobSettingsAreRefusedBeforeAnythingIsSubmitted() {
    SlurmBackend backend = backend(SlurmCluster.Transport.LOCAL);
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(pod("bad", tmp.resolve("logs"), Map.of(InterLinkFlags.FLAGS, "--output=/etc/passwd"))).build())
        .getPodSandboxId();

    assertThatThrownBy(() -> backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(sandbox)
        .setConfig(container("main", List.of("true"), Map.of())).build()))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("--output");
    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList()).isEmpty();
  }

  /** The script as slurmctld keeps it, which is what anyone with scontrol can read back. */
  private static String storedBatchScript(String jobName) throws Exception {
    List<String> jobs = jobsNamed(jobName);
    assertThat(jobs).hasSize(1);
    Process scontrol = new ProcessBuilder("scontrol", "write", "batch_script", jobs.getFirst().strip(), "-")
        .redirectErrorStream(true).start();
    String script = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(scontrol.waitFor()).as(script).isZero();
    return script;
  }
}
