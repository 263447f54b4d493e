package io.crigate.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.MetricValues;
import io.crigate.testsupport.SelfSignedTls;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamingServerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final MutableClock clock = new MutableClock();
  private final StreamingServer server = StreamingServer.create(StreamingSettings.defaults(), clock);
  private final UppercaseRuntime runtime = new UppercaseRuntime();

  @AfterEach
  void close() {
    server.close();
  }

  private String exec(String... cmd) {
    return server.exec(ExecRequest.newBuilder().setContainerId("c1").addAllCmd(java.util.List.of(cmd))
        .setStdin(true).setStdout(true).setStderr(true).build(), runtime).getUrl();
  }

  @Test
  void urlsNameLoopbackAndCarryAnUnguessableToken() {
    String url = exec("upper", "0");

    assertThat(url).startsWith("http://127.0.0.1:" + server.address().getPort() + "/exec/");
    // 32 random bytes in unpadded base64url
    assertThat(url.substring(url.lastIndexOf('/') + 1)).matches("[A-Za-z0-9_-]{43}");
  }

  @Test
  void webSocketV5SessionSeparatesChannelsAndReportsTheExitCode() throws Exception {
    WebSocketClient client = WebSocketClient.open(exec("upper", "3"), WebSocketStreams.V5);
    client.send(Outbound.STDIN, "hello ");
    client.send(Outbound.STDIN, "world");
    client.closeChannel(Outbound.STDIN);

    assertThat(client.subprotocol()).isEqualTo("v5.channel.k8s.io");
    assertThat(client.received(Outbound.STDOUT)).isEqualTo("HELLO WORLD");
    assertThat(client.received(Outbound.STDERR)).isEqualTo("err");
    JsonNode status = JSON.readTree(client.received(Outbound.ERROR));
    assertThat(status.path("status").asText()).isEqualTo("Failure");
    assertThat(status.path("reason").asText()).isEqualTo("NonZeroExitCode");
    assertThat(status.path("details").path("causes").get(0).path("reason").asText()).isEqualTo("ExitCode");
    assertThat(status.path("details").path("causes").get(0).path("message").asText()).isEqualTo("3");
    assertThat(client.closeCode()).isEqualTo(1000);
  }

  @Test
  void withoutStdinTheCommandReadsEndOfFileAndExitZeroIsSuccess() throws Exception {
    String url = server.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("upper").addCmd("0")
        .setStdout(true).build(), runtime).getUrl();

    WebSocketClient client = WebSocketClient.open(url, WebSocketStreams.V4);

    assertThat(client.subprotocol()).isEqualTo("v4.channel.k8s.io");
    assertThat(client.received(Outbound.STDOUT)).isEmpty();
    assertThat(client.received(Outbound.STDERR)).as("stderr was not asked for").isEmpty();
    assertThat(JSON.readTree(client.received(Outbound.ERROR)).path("status").asText()).isEqualTo("Success");
  }

  @Test
  void aFailureToStartReachesTheClientAsItsMessage() throws Exception {
    WebSocketClient client = WebSocketClient.open(exec("fail"), WebSocketStreams.V5);

    JsonNode status = JSON.readTree(client.received(Outbound.ERROR));
    assertThat(status.path("status").asText()).isEqualTo("Failure");
    assertThat(status.path("message").asText()).isEqualTo("container c1 is not running");
  }

  @Test
  void resizeMessagesReachTheRuntime() throws Exception {
    String url = server.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("size").setStdin(true)
        .setStdout(true).setTty(true).build(), runtime).getUrl();
    WebSocketClient client = WebSocketClient.open(url, WebSocketStreams.V5);
    client.send(Outbound.RESIZE, "{\"Width\":132,\"Height\":43}");

    assertThat(client.received(Outbound.STDOUT)).isEqualTo("132x43");
  }

  /** A forgotten session: nothing passes for the idle timeout, so the server closes it and the command ends. */
  @Test
  void aConnectionIdleForTheTimeoutIsClosedAndItsCommandEnds() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    try (StreamingServer idle = StreamingServer.create(withIdleTimeout(Duration.ofMillis(500)), clock, registry)) {
      WebSocketClient client = echoSession(idle);

      assertThat(client.ended()).succeedsWithin(Duration.ofSeconds(10));
      assertThat(runtime.echoEnded.await(10, TimeUnit.SECONDS)).as("the command ended").isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> Double.valueOf(0).equals(sessions(registry)));
      assertThat(MetricValues.of(registry, "crigate_streaming_idle_closes")).isEqualTo(1);
    }
  }

  /** A session that keeps passing bytes outlives many idle timeouts. */
  @Test
  void aConnectionInUseIsNotIdle() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    try (StreamingServer idle = StreamingServer.create(withIdleTimeout(Duration.ofSeconds(1)), clock, registry)) {
      WebSocketClient client = echoSession(idle);
      for (int i = 0; i < 15; i++) {
        client.send(Outbound.STDIN, "x");
        Thread.sleep(200);
      }
      assertThat(client.ended()).as("open after 3 s of use").isNotDone();
      assertThat(sessions(registry)).as("one session open").isEqualTo(1);
      client.closeChannel(Outbound.STDIN);

      assertThat(client.received(Outbound.STDOUT)).isEqualTo("x".repeat(15));
      assertThat(sessions(registry)).isEqualTo(0);
      assertThat(MetricValues.of(registry, "crigate_streaming_sessions_ended", "kind", "exec", "outcome", "exit_0")).isEqualTo(1);
      assertThat(MetricValues.of(registry, "crigate_streaming_idle_closes")).isEqualTo(0);
    }
  }

  private static Double sessions(PrometheusRegistry registry) {
    return MetricValues.of(registry, "crigate_streaming_sessions", "kind", "exec");
  }

  /** A client connected to an exec of {@code echo}: stdin back on stdout until it ends. */
  private WebSocketClient echoSession(StreamingServer on) throws Exception {
    String url = on.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("echo").setStdin(true)
        .setStdout(true).build(), runtime).getUrl();
    return WebSocketClient.open(url, WebSocketStreams.V5);
  }

  private static StreamingSettings withIdleTimeout(Duration timeout) {
    StreamingSettings defaults = StreamingSettings.defaults();
    return new StreamingSettings(defaults.address(), 0, defaults.tokenTtl(), defaults.streamCreationTimeout(), timeout,
        Optional.empty());
  }

  /** With a certificate the URLs are https and a session runs over TLS; a file that is no key stops the start. */
  @Test
  void withTlsTheUrlIsHttpsAndTheSessionRunsOverIt(@TempDir Path dir) throws Exception {
    SelfSignedTls.generate(dir);
    StreamingSettings defaults = StreamingSettings.defaults();
    StreamingSettings withTls = new StreamingSettings(defaults.address(), 0, defaults.tokenTtl(),
        defaults.streamCreationTimeout(), defaults.idleTimeout(), Optional.of(new StreamingTls(dir.resolve("tls.crt"), dir.resolve("tls.key"))));
    try (StreamingServer tls = StreamingServer.create(withTls, clock)) {
      String url = tls.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("upper").addCmd("0").setStdin(true)
          .setStdout(true).build(), runtime).getUrl();
      assertThat(url).startsWith("https://127.0.0.1:");

      WebSocketClient client = WebSocketClient.open(url, WebSocketStreams.V5,
          HttpClient.newBuilder().sslContext(SelfSignedTls.trusting(dir.resolve("tls.crt"))).build());
      client.send(Outbound.STDIN, "over tls");
      client.closeChannel(Outbound.STDIN);
      assertThat(client.received(Outbound.STDOUT)).isEqualTo("OVER TLS");
    }

    StreamingSettings keyIsNoKey = new StreamingSettings(defaults.address(), 0, defaults.tokenTtl(),
        defaults.streamCreationTimeout(), defaults.idleTimeout(), Optional.of(new StreamingTls(dir.resolve("tls.crt"), dir.resolve("tls.crt"))));
    assertThatThrownBy(() -> StreamingServer.create(keyIsNoKey, clock)).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("cannot be used").hasMessageContaining("PKCS#8");
  }

  @Test
  void attachUrlsServeAttach() throws Exception {
    String url = server.attach(AttachRequest.newBuilder().setContainerId("c1").setStdout(true).build(), runtime).getUrl();
    assertThat(url).contains("/attach/");

    WebSocketClient client = WebSocketClient.open(url, WebSocketStreams.V5);

    assertThat(client.received(Outbound.STDOUT)).isEqualTo("attached");
    assertThat(JSON.readTree(client.received(Outbound.ERROR)).path("status").asText()).isEqualTo("Success");
  }

  @Test
  void aTokenWorksOnce() throws Exception {
    String url = exec("upper", "0");
    WebSocketClient.open(url, WebSocketStreams.V5).closeChannel(Outbound.STDIN);

    assertThat(rawRequest(url, "Upgrade: websocket")).startsWith("HTTP/1.1 404").contains("already used or expired");
  }

  @Test
  void anExpiredTokenIsRefused() throws Exception {
    String url = exec("upper", "0");
    clock.advance(StreamingSettings.defaults().tokenTtl());

    assertThat(rawRequest(url, "Upgrade: websocket")).startsWith("HTTP/1.1 404");
  }

  @Test
  void anExecTokenDoesNotOpenAnAttach() throws Exception {
    String url = exec("upper", "0").replace("/exec/", "/attach/");

    assertThat(rawRequest(url, "Upgrade: websocket")).startsWith("HTTP/1.1 404");
  }

  @Test
  void aRequestWithoutUpgradeIsToldWhichProtocolsWork() throws Exception {
    assertThat(rawRequest(exec("upper", "0"), "X-Nothing: 1"))
        .startsWith("HTTP/1.1 400").contains("SPDY/3.1").contains("v4.channel.k8s.io").contains("v5.channel.k8s.io");
  }

  @Test
  void spdyWithoutV4IsForbiddenNamingWhatIsServed() throws Exception {
    String response = rawRequest(exec("upper", "0"), "Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v2.channel.k8s.io");

    assertThat(response).startsWith("HTTP/1.1 403")
        .contains("client supports [v2.channel.k8s.io], server accepts [v4.channel.k8s.io]");
  }

  @Test
  void spdyWithV4IsUpgraded() throws Exception {
    String response = rawRequest(exec("upper", "0"),
        "Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io, v3.channel.k8s.io");

    assertThat(response).startsWith("HTTP/1.1 101").containsIgnoringCase("upgrade: SPDY/3.1")
        .containsIgnoringCase("x-stream-protocol-version: v4.channel.k8s.io");
  }

  @Test
  void requestsTheKubeletWouldRefuseAreRefusedBeforeAUrlIsIssued() {
    assertThatThrownBy(() -> server.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("x").build(), runtime))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("one of stdin, stdout or stderr");
    assertThatThrownBy(() -> server.exec(ExecRequest.newBuilder().setContainerId("c1").addCmd("x").setTty(true)
        .setStdout(true).setStderr(true).build(), runtime))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("tty and stderr");
    assertThatThrownBy(() -> server.exec(ExecRequest.newBuilder().setContainerId("c1").setStdout(true).build(), runtime))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("cmd");
  }

  /** One HTTP/1.1 request with {@code headers}, written by hand because the JDK client forbids Upgrade. */
  private static String rawRequest(String url, String headers) throws Exception {
    URI uri = URI.create(url);
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), uri.getPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\n%s\r\n\r\n".formatted(uri.getPath(),
          uri.getAuthority(), headers)).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[4096];
      int n = in.read(buffer);
      return new String(buffer, 0, Math.max(n, 0), StandardCharsets.UTF_8);
    }
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    private Instant now = Instant.parse("2026-11-25T10:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
