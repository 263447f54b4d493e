package io.crigate.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.MetricValues;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PortForward through the streaming server, over SPDY as the kubelet proxies it and over WebSocket. */
class PortForwardTest {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private static final StreamingSettings DEFAULTS = StreamingSettings.defaults();
  private final StreamingServer server = StreamingServer.create(new StreamingSettings(DEFAULTS.address(),
      DEFAULTS.port(), DEFAULTS.tokenTtl(), Duration.ofMillis(500), DEFAULTS.idleTimeout(), DEFAULTS.tls()),
      new StreamingServerTest.MutableClock(), registry);
  private final ShoutingForwarder pod = new ShoutingForwarder();

  @AfterEach
  void close() {
    server.close();
  }

  private String url(Integer... ports) {
    String url = server.portForward(PortForwardRequest.newBuilder().setPodSandboxId("pod1")
        .addAllPort(List.of(ports)).build(), pod).getUrl();
    assertThat(url).contains("/portforward/");
    return url;
  }

  private static String[] pairHeaders(String type, int port, String requestId) {
    // SPDY header names are lower case on the wire; spdystream lower-cases client-go's streamType and requestID
    return requestId == null ? new String[] {"streamtype", type, "port", Integer.toString(port)}
        : new String[] {"streamtype", type, "port", Integer.toString(port), "requestid", requestId};
  }

  @Test
  void eachPairOfStreamsIsOneConnectionToItsPortOnOneSpdyConnection() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL)) {
      assertThat(client.upgradeResponse().headers().get(UpgradeHandler.PROTOCOL_HEADER)).isEqualTo("portforward.k8s.io");
      int error0 = client.openStream(pairHeaders("error", 8080, "0"));
      int error1 = client.openStream(pairHeaders("error", 9090, "1"));
      int data1 = client.openStream(pairHeaders("data", 9090, "1"));
      int data0 = client.openStream(pairHeaders("data", 8080, "0"));
      client.send(data0, "first", true);
      client.send(data1, "second", true);

      assertThat(client.stream(data0).textAtEnd()).isEqualTo("8080:FIRST");
      assertThat(client.stream(data1).textAtEnd()).isEqualTo("9090:SECOND");
      assertThat(client.stream(error0).textAtEnd()).isEmpty();
      assertThat(client.stream(error1).textAtEnd()).isEmpty();
      assertThat(client.isOpen()).as("the connection outlives its forwards, as kubectl keeps it").isTrue();
    }
  }

  @Test
  void streamsWithoutRequestIdArePairedByTheirConsecutiveIds() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL)) {
      int error0 = client.openStream(pairHeaders("error", 80, null));
      int data0 = client.openStream(pairHeaders("data", 80, null));
      client.send(data0, "a", true);
      assertThat(client.stream(data0).textAtEnd()).isEqualTo("80:A");
      int error1 = client.openStream(pairHeaders("error", 81, null));
      int data1 = client.openStream(pairHeaders("data", 81, null));
      client.send(data1, "b", true);

      assertThat(client.stream(data1).textAtEnd()).isEqualTo("81:B");
      assertThat(List.of(error0, data0, error1, data1)).containsExactly(1, 3, 5, 7);
      assertThat(client.stream(error1).textAtEnd()).isEmpty();
    }
  }

  @Test
  void aPortThatCannotBeReachedIsReportedOnItsErrorStreamAsTheKubeletWordsIt() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL)) {
      int error = client.openStream(pairHeaders("error", ShoutingForwarder.CLOSED, "0"));
      int data = client.openStream(pairHeaders("data", ShoutingForwarder.CLOSED, "0"));

      assertThat(client.stream(error).textAtEnd())
          .isEqualTo("error forwarding port 13 to pod pod1: nothing listens on port 13");
      assertThat(client.stream(data).ended.get(10, TimeUnit.SECONDS)).as("closed, not reset").isTrue();
    }
    assertThat(MetricValues.of(registry, "crigate_streaming_sessions_ended", "kind", "portforward", "outcome", "failed"))
        .isEqualTo(1.0);
  }

  @Test
  void onlyTheRequestsPortsCanBeOpenedWhenItListsAny() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(8080), SpdyPortForward.PROTOCOL)) {
      int error = client.openStream(pairHeaders("error", 22, "0"));
      client.openStream(pairHeaders("data", 22, "0"));

      assertThat(client.stream(error).textAtEnd()).isEqualTo("error forwarding port 22 to pod pod1: "
          + "port 22 was not among the ports PortForward was asked for ([8080])");
    }
  }

  @Test
  void streamsNamingNoValidTypeOrPortAreRefused() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL)) {
      int noPort = client.openStream("streamtype", "data", "requestid", "0");
      int badPort = client.openStream(pairHeaders("data", 70000, "1"));
      int badType = client.openStream(pairHeaders("stdin", 80, "2"));

      for (int stream : List.of(noPort, badPort, badType)) {
        assertThat(client.stream(stream).replied.get(10, TimeUnit.SECONDS)).as("stream %d accepted", stream).isFalse();
      }
    }
  }

  @Test
  void aPairLeftHalfOpenIsToldOnItsErrorStreamAndClosed() throws Exception {
    try (SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL)) {
      int error = client.openStream(pairHeaders("error", 80, "0"));

      assertThat(client.stream(error).textAtEnd()).isEqualTo("timed out waiting for the data stream of request 0");
    }
  }

  @Test
  void theClientLeavingEndsItsForwards() throws Exception {
    SpdyTestClient client = SpdyTestClient.open(url(), SpdyPortForward.PROTOCOL);
    client.openStream(pairHeaders("error", ShoutingForwarder.ECHO, "0"));
    int data = client.openStream(pairHeaders("data", ShoutingForwarder.ECHO, "0"));
    client.send(data, "ping", false);
    await().atMost(Duration.ofSeconds(10)).until(() -> client.stream(data).text().equals("ping"));

    client.close();

    assertThat(pod.echoEnded.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void spdyUpgradesOfferingOtherProtocolsAreForbiddenAndNoneOfferedIsServed() throws Exception {
    assertThatThrownBy(() -> SpdyTestClient.open(url(), SpdyStreams.PROTOCOL)).hasMessageContaining("403")
        .hasMessageContaining("client supports [v4.channel.k8s.io], server accepts [portforward.k8s.io]");
    try (SpdyTestClient client = SpdyTestClient.open(url())) {
      assertThat(client.upgradeResponse().status().code()).isEqualTo(101);
    }
  }

  @Test
  void overWebSocketEachPortHasADataAndAnErrorChannelPrefixedWithThePort() throws Exception {
    WebSocketClient client = WebSocketClient.open(url() + "?port=" + ShoutingForwarder.ECHO + "&port="
        + ShoutingForwarder.CLOSED, WebSocketPortForward.PROTOCOL);
    assertThat(client.subprotocol()).isEqualTo("v4.channel.k8s.io");
    client.send(0, "hello");
    await().atMost(Duration.ofSeconds(10)).until(() -> client.soFar(0).length == 2 + "hello".length());
    client.closeNormally();

    assertThat(client.receivedBytes(0)).containsExactly(7, 0, 'h', 'e', 'l', 'l', 'o'); // port 7, little endian
    assertThat(client.receivedBytes(1)).containsExactly(7, 0);
    assertThat(client.receivedBytes(2)).containsExactly(13, 0);
    byte[] error = client.receivedBytes(3);
    assertThat(new String(error, 2, error.length - 2, StandardCharsets.UTF_8))
        .isEqualTo("error forwarding port 13 to pod pod1: nothing listens on port 13");
    assertThat(pod.echoEnded.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aWebSocketPortForwardEndsOnceEveryPortsForwardHas() throws Exception {
    WebSocketClient client = WebSocketClient.open(url() + "?port=" + ShoutingForwarder.CLOSED,
        WebSocketPortForward.PROTOCOL);

    assertThat(client.closeCode()).isEqualTo(1000);
  }

  @Test
  void aWebSocketPortForwardWithoutAValidPortIsABadRequest() throws Exception {
    assertThatThrownBy(() -> WebSocketClient.open(url(), WebSocketPortForward.PROTOCOL)).hasStackTraceContaining("400");
    assertThatThrownBy(() -> WebSocketClient.open(url() + "?port=0", WebSocketPortForward.PROTOCOL))
        .hasStackTraceContaining("400");
  }

  @Test
  void requestsNamingNoPodOrAnImpossiblePortAreRefusedBeforeAUrlIsIssued() {
    assertThatThrownBy(() -> server.portForward(PortForwardRequest.getDefaultInstance(), pod))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("pod_sandbox_id");
    assertThatThrownBy(() -> server.portForward(PortForwardRequest.newBuilder().setPodSandboxId("p").addPort(0).build(), pod))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("port 0");
  }
}
