package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kubectl exec -it, attach and port-forward into a real Slurm job through crigate: the CRI
 * Exec/Attach/PortForward URL is opened by Go clients built on spdystream and gorilla/websocket, the
 * libraries Kubernetes uses, over SPDY/3.1 (v4.channel.k8s.io and portforward.k8s.io, as the
 * kubelet) and WebSocket (v5.channel.k8s.io, as kubectl), and by crigate ctl port-forward.
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

  static final String WEB_PAGE = "served from a slurm job\n";
  static GoExecClient client;
  static GoPortForwardClient portForward;
  static WebServer web;
  static PodSandboxConfig pod;
  static String podId;
  static String shell;

  @BeforeAll
  static void startAJob() throws Exception {
    Files.createDirectories(SLURM_WORK);
    client = GoExecClient.build(Path.of("target/go-client"));
    portForward = GoPortForwardClient.build(Path.of("target/go-client"));
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

  /** kubectl port-forward as the kubelet proxies it: SPDY with portforward.k8s.io, two connections on one. */
  @Test
  void portForwardOverSpdyReachesTheJobsPortOncePerConnection() throws Exception {
    startWebServer();

    GoPortForwardClient.Result result = portForward.run(portForwardUrl(), "-ports", web.port() + "," + web.port(),
        "-send", "GET / HTTP/1.0\r\n\r\n");

    assertThat(result.processExit()).as(result.clientError()).isZero();
    assertThat(result.connections()).hasSize(2).allSatisfy(connection -> {
      assertThat(connection.clientError()).isEmpty();
      assertThat(connection.error()).isEmpty();
      assertThat(connection.data()).startsWith("HTTP/1.").contains(" 200 ").endsWith(WEB_PAGE);
    });
    // each forwarded connection is a session of its own on /metrics, ended cleanly, none left open
    assertThat(MetricsEndpoint.scrapeUntil(crigate, Pattern.compile(
        "crigate_streaming_sessions_ended_total\\{kind=\"portforward\",outcome=\"exit_0\"} ([2-9]|[1-9][0-9]+)")))
        .containsPattern("crigate_streaming_sessions\\{kind=\"portforward\"} 0");
    // and relays for the client's next connections wait in the job
    MetricsEndpoint.scrapeUntil(crigate, Pattern.compile("crigate_slurm_port_relays_waiting\\{backend=\"hpc\"} [1-9]"));
  }

  /** Clients before Kubernetes 1.6 send no requestID; their streams are paired by id. */
  @Test
  void portForwardPairsStreamsWithoutRequestIdByTheirIds() throws Exception {
    startWebServer();

    GoPortForwardClient.Result result = portForward.run(portForwardUrl(), "-ports", web.port() + "," + web.port(),
        "-send", "GET / HTTP/1.0\r\n\r\n", "-no-request-id");

    assertThat(result.connections()).extracting(GoPortForwardClient.Connection::data)
        .allSatisfy(data -> assertThat(data).endsWith(WEB_PAGE));
  }

  @Test
  void aPortNothingListensOnIsReportedOnTheErrorStreamAsTheKubeletWordsIt() throws Exception {
    int closed = freePort();

    GoPortForwardClient.Result result = portForward.run(portForwardUrl(), "-ports", Integer.toString(closed),
        "-send", "hello");

    GoPortForwardClient.Connection connection = result.connections().getFirst();
    assertThat(connection.error()).startsWith("error forwarding port %d to pod %s: nothing accepted a connection to port %d: container "
        .formatted(closed, podId, closed)).contains("Connection refused");
    assertThat(connection.data()).isEmpty();
    assertThat(connection.clientError()).as("both streams closed, none reset").isEmpty();
  }

  /** crigate ctl port-forward: a local port whose connections each open a WebSocket port forward. */
  @Test
  void ctlPortForwardReachesTheJobsPortOverWebSocket() throws Exception {
    startWebServer();
    Path output = crigate.workDir().resolve("ctl-port-forward.out");
    Process forward = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), "ctl",
        "-r", "unix://" + crigate.process().socket(), "port-forward", podId.substring(0, 12), ":" + web.port())
        .redirectOutput(output.toFile()).redirectErrorStream(true).start();
    try {
      Pattern forwarding = Pattern.compile("Forwarding from 127.0.0.1:(\\d+) -> " + web.port());
      Matcher local = forwarding.matcher(await("ctl port-forward listening").atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(output), text -> forwarding.matcher(text).find()));
      assertThat(local.find()).isTrue();

      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(local.group(1)))) {
        socket.setSoTimeout(30_000);
        socket.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
            .startsWith("HTTP/1.").endsWith(WEB_PAGE);
      }
    } finally {
      forward.destroy();
      forward.waitFor();
    }
    assertThat(Files.readString(output)).as("no errors from ctl").doesNotContain("crigate ctl port-forward:");
  }

  @Test
  void portForwardNamingAPortThatCannotExistIsRefused() {
    assertThatThrownBy(() -> crigate.cri().runtime().portForward(PortForwardRequest.newBuilder()
        .setPodSandboxId(podId).addPort(70000).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("port 70000");
        });
  }

  private static String portForwardUrl() {
    String url = crigate.cri().runtime().portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build()).getUrl();
    assertThat(url).startsWith("http://127.0.0.1:").contains("/portforward/");
    return url;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** A job in the pod serving {@link #WEB_PAGE} over HTTP on its node's loopback, started once. */
  private static synchronized void startWebServer() throws Exception {
    if (web != null) {
      return;
    }
    int port = freePort();
    Path site = Files.createDirectories(SLURM_WORK.resolve("site"));
    Files.writeString(site.resolve("index.html"), WEB_PAGE);
    String id = start(shellContainer("web", "none", "exec busybox httpd -f -p 127.0.0.1:%d -h %s".formatted(port, site)));
    await("httpd listening").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() ->
        crigate.cri().runtime().execSync(ExecSyncRequest.newBuilder().setContainerId(id).addCmd("bash").addCmd("-c")
            .addCmd("exec 3<>/dev/tcp/127.0.0.1/" + port).setTimeout(10).build()).getExitCode() == 0);
    web = new WebServer(id, port);
  }

  private record WebServer(String containerId, int port) {}
}
