package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kubectl exec -it and attach into a real Slurm job through crigate: the CRI Exec/Attach URL is
 * opened by a Go client built on spdystream and gorilla/websocket, the libraries Kubernetes uses,
 * over SPDY/3.1 (v4.channel.k8s.io, as the kubelet) and WebSocket (v5.channel.k8s.io, as kubectl).
 */
class StreamingIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Path SLURM_WORK = Path.of(System.getenv("CRIGATE_SLURM_WORKDIR")).resolve("streaming-it-" + UUID.randomUUID());

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA()).withConfig("""
      backends:
        - name: hpc
          type: slurm
          handlers: [slurm]
          workDir: %s
          transport: local
          pollIntervalMillis: 200
      metrics:
        enabled: true
        port: 0
      """.formatted(SLURM_WORK));

  static GoExecClient client;
  static PodSandboxConfig pod;
  static String podId;
  static String shell;

  @BeforeAll
  static void startAJob() throws Exception {
    Files.createDirectories(SLURM_WORK);
    client = GoExecClient.build(Path.of("target/go-client"));
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    pod = hostNetworkPod("streaming", crigate.workDir().resolve("pods"));
    podId = runtime.runPodSandbox(runPod(pod, "slurm")).getPodSandboxId();
    shell = start(shellContainer("shell", "none", "sleep 600"));
  }

  @AfterAll
  static void removeThePod() throws Exception {
    if (podId != null) {
      crigate.cri().removePod(podId);
    }
    try (var paths = Files.walk(SLURM_WORK)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  private static String start(ContainerConfig container) {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    String id = runtime.createContainer(create(podId, container, pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    await("slurm job of " + id + " running").atMost(Duration.ofSeconds(60)).until(() -> runtime
        .containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build()).getStatus().getMessage()
        .contains("RUNNING"));
    return id;
  }

  private static String execUrl(ExecRequest.Builder request) {
    return crigate.cri().runtime().exec(request.setContainerId(shell).build()).getUrl();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"spdy", "ws"})
  void interactiveExecWithTerminalSeesInputAndResizeAndReportsExitCode(String protocol) {
    // The job's terminal: echo a line back, then print its size for every further line until it is 100x30.
    String url = execUrl(ExecRequest.newBuilder().addCmd("sh").addCmd("-c").addCmd(
        "read a; echo got:$a; while read b; do s=$(stty size); echo size:$s; [ \"$s\" = '30 100' ] && exit 3; done; exit 9")
        .setStdin(true).setStdout(true).setTty(true));
    assertThat(url).startsWith("http://127.0.0.1:").contains("/exec/");

    GoExecClient.Result result = client.run(url, protocol, "-tty");

    assertThat(result.clientError()).isEmpty();
    assertThat(result.stdout()).contains("got:hello").contains("size:30 100");
    assertThat(result.exitCode()).as("exit code from the v4 status on the error channel").isEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"spdy", "ws"})
  void execWithoutTerminalKeepsStdoutAndStderrApartAndEndsAtStdinEof(String protocol) {
    String url = execUrl(ExecRequest.newBuilder().addCmd("sh").addCmd("-c")
        .addCmd("tr a-z A-Z; echo to-stderr >&2; exit 3").setStdin(true).setStdout(true).setStderr(true));

    GoExecClient.Result result = client.run(url, protocol, "-stdin", "hello streams\n");

    // tr ends only when the client half-closes stdin, so the output also proves stdin's EOF arrived.
    assertThat(result.stdout()).isEqualTo("HELLO STREAMS\n");
    assertThat(result.stderr()).contains("to-stderr");
    assertThat(result.exitCode()).isEqualTo(3);
  }

  @Test
  void aUrlWorksOnce() {
    String url = execUrl(ExecRequest.newBuilder().addCmd("true").setStdout(true));
    assertThat(client.run(url, "spdy", "-no-stdin").exitCode()).isZero();

    GoExecClient.Result again = client.run(url, "spdy", "-no-stdin");

    assertThat(again.processExit()).isNotZero();
    assertThat(again.clientError()).contains("404").contains("already used or expired");
  }

  @Test
  void attachFollowsTheJobsOutputUntilItEnds() {
    String ticker = start(shellContainer("ticker", "none", "sleep 2; for i in 1 2 3 4 5; do echo tick-$i; sleep 0.4; done"));
    String url = crigate.cri().runtime().attach(AttachRequest.newBuilder().setContainerId(ticker)
        .setStdout(true).setStderr(true).build()).getUrl();

    GoExecClient.Result result = client.run(url, "ws", "-no-stdin");

    assertThat(result.stdout()).contains("tick-5");
    assertThat(result.exitCode()).as("attach ends with the job, successfully").isZero();
  }

  @Test
  void attachWithStdinIsRefusedNamingTheReason() {
    assertThatThrownBy(() -> crigate.cri().runtime().attach(AttachRequest.newBuilder().setContainerId(shell)
        .setStdin(true).setStdout(true).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("has no stdin");
        });
  }

  /** cri-resmgr's --logger-debug, here: debug output for one component, live, by SIGHUP after editing the file. */
  @Test
  void sighupAppliesTheLoggingSectionWithoutARestart() throws Exception {
    Path config = crigate.workDir().resolve("crigate.yaml");
    Path log = crigate.workDir().resolve("crigate.log");
    String original = Files.readString(config);
    try {
      Files.writeString(config, original + "logging:\n  levels:\n    streaming: debug\n");
      new ProcessBuilder("kill", "-HUP", Long.toString(crigate.process().pid())).start().waitFor();
      await("reload logged").atMost(Duration.ofSeconds(20)).until(() -> Files.readString(log)
          .contains("SIGHUP: log levels now root=INFO {io.crigate.streaming=DEBUG}"));

      String url = execUrl(ExecRequest.newBuilder().addCmd("true").setStdout(true));
      assertThat(client.run(url, "ws", "-no-stdin").exitCode()).isZero();

      assertThat(Files.readString(log)).as("debug lines of the streaming component, before any restart")
          .containsPattern("DEBUG .*io\\.crigate\\.streaming\\.UpgradeHandler - .*upgraded to WebSocket");
      assertThat(crigate.process().isAlive()).isTrue();
    } finally {
      Files.writeString(config, original);
      new ProcessBuilder("kill", "-HUP", Long.toString(crigate.process().pid())).start().waitFor();
    }
  }

  @Test
  void metricsShowCallsBackendsStoreWritesAndSlurmJobs() throws Exception {
    String url = execUrl(ExecRequest.newBuilder().addCmd("sh").addCmd("-c").addCmd("exit 3").setStdout(true));
    assertThat(client.run(url, "ws").exitCode()).isEqualTo(3);
    String metrics = MetricsEndpoint.scrapeUntil(crigate,
        Pattern.compile(Pattern.quote("crigate_slurm_poll_duration_seconds_count{backend=\"hpc\"}")));

    assertThat(metrics)
        .contains("crigate_cri_request_duration_seconds_count{method=\"Exec\"}")
        .contains("crigate_backend_request_duration_seconds_count{backend=\"hpc\",method=\"Exec\"}")
        .contains("crigate_backend_up{backend=\"hpc\"} 1")
        .contains("crigate_db_write_duration_seconds_count{store=\"backend:hpc\"}")
        .contains("crigate_slurm_commands_per_poll_count{backend=\"hpc\"}")
        .containsPattern("crigate_slurm_jobs\\{backend=\"hpc\",state=\"RUNNING\"} [1-9]")
        // the session above, ended with its exit code, and none left open
        .containsPattern("crigate_streaming_sessions_ended_total\\{kind=\"exec\",outcome=\"exit_nonzero\"} [1-9]")
        .containsPattern("crigate_streaming_sessions\\{kind=\"exec\"} 0");
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(MetricsEndpoint.base(crigate).resolve("/readyz")).build(),
        BodyHandlers.ofString()).statusCode()).isEqualTo(200);
  }

  @Test
  void portForwardIsUnimplementedForSlurm() {
    assertThatThrownBy(() -> crigate.cri().runtime().portForward(PortForwardRequest.newBuilder()
        .setPodSandboxId(podId).addPort(8080).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
          assertThat(e.getStatus().getDescription()).contains("PortForward is not implemented for slurm");
        });
  }
}
