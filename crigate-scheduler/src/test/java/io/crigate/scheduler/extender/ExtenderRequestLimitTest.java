package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 11: request bodies are bounded by what kube-scheduler can send a
 * {@code nodeCacheCapable} extender at 5,000 nodes, and anything above is 413, never read.
 */
class ExtenderRequestLimitTest {

  static final int NODES = 5_000;
  /** A node name is a DNS subdomain: at most 253 characters. */
  static final int LONGEST_NODE_NAME = 253;
  /** etcd's default request limit, which bounds any Pod the API server stores. */
  static final int LARGEST_POD_BYTES = 1536 * 1024;

  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static ExtenderServer server;
  static final NodeTable nodes = new NodeTable();

  @BeforeAll
  static void start() {
    server = new ExtenderServer("127.0.0.1", 0, "/crigate", false, new LayerIndex(nodes), new NodeLoads(nodes), image -> {
      throw new CrigateException.NotFound(image);
    });
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The fixture's Deployment pod padded (by an annotation) to the largest a Pod can be, and 5,000 longest names. */
  static byte[] largestNodeCacheCapableRequest() throws Exception {
    ObjectNode pod = (ObjectNode) JSON.readTree(Path.of("src/test/resources/extender/args-nodenames.json").toFile()).get("Pod");
    int unpadded = JSON.writeValueAsBytes(pod).length;
    pod.withObject("/metadata/annotations").put("padding", "x".repeat(LARGEST_POD_BYTES - unpadded - 34));
    ObjectNode args = JSON.createObjectNode();
    args.set("Pod", pod);
    args.putNull("Nodes");
    var names = args.putArray("NodeNames");
    for (int i = 0; i < NODES; i++) {
      String number = Integer.toString(i);
      names.add("n".repeat(LONGEST_NODE_NAME - number.length()) + number);
    }
    return JSON.writeValueAsBytes(args);
  }

  @Test
  void theLargestRequestOfFiveThousandNodesIsAnswered() throws Exception {
    byte[] request = largestNodeCacheCapableRequest();

    HttpResponse<String> response = HTTP.send(post(HttpRequest.BodyPublishers.ofByteArray(request)), HttpResponse.BodyHandlers.ofString());

    assertThat((long) request.length).isLessThanOrEqualTo(ExtenderEndpoint.DEFAULT_MAX_REQUEST_BYTES);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.body())).hasSize(NODES);
  }

  @Test
  void oneByteMoreIs413WhetherTheLengthIsAnnouncedOrNot() throws Exception {
    assert413((int) ExtenderEndpoint.DEFAULT_MAX_REQUEST_BYTES + 1);
  }

  /**
   * 4 MiB is well beyond the largest request measured above; it is refused, not parsed. The server
   * answers 413 and closes while megabytes are still on their way, so the client may instead see the
   * connection reset before it reads the answer (HTTP/1.1 allows the close; Java's client reads no
   * answer until it has sent the body): either way no call is made.
   */
  @Test
  void aBodyBeyondAnyLegalRequestIs413() throws Exception {
    for (var body : bodies(4 << 20)) {
      try (HttpClient fresh = HttpClient.newHttpClient()) {
        assertThat(fresh.send(post(body), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).statusCode())
            .as("body of 4 MiB, length %s", body.contentLength()).isEqualTo(413);
      } catch (IOException closedWhileSending) {
        // the refusal reached the client as the connection's end
      }
    }
    // and the server is no worse for it (on this class's shared client, which the refusals did not touch)
    assertThat(HTTP.send(post(HttpRequest.BodyPublishers.ofString("{")), HttpResponse.BodyHandlers.ofString()).statusCode())
        .isEqualTo(400);
  }

  /** Beyond what the HTTP codec reads (8 KiB of headers, 4 KiB of request line) is refused by name, and the server stays up. */
  @Test
  void headersOrAPathBeyondTheCodecsLimitsAreRefusedByStatus() throws Exception {
    try (HttpClient fresh = HttpClient.newHttpClient()) {
      HttpRequest hugeHeader = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize"))
          .timeout(Duration.ofMinutes(1)).header("X-Padding", "p".repeat(16 * 1024))
          .POST(HttpRequest.BodyPublishers.ofString("{")).build();
      HttpResponse<String> refused = fresh.send(hugeHeader, HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).isEqualTo(431);
      assertThat(refused.body()).contains("malformed HTTP request");
    }
    try (HttpClient fresh = HttpClient.newHttpClient()) {
      HttpRequest hugePath = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + "p".repeat(8 * 1024)))
          .timeout(Duration.ofMinutes(1)).GET().build();
      assertThat(fresh.send(hugePath, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(414);
    }
    assertThat(HTTP.send(post(HttpRequest.BodyPublishers.ofString("{")), HttpResponse.BodyHandlers.ofString()).statusCode())
        .isEqualTo(400);
  }

  /**
   * Each body on a connection of its own: the server closes a connection after refusing a body it
   * did not read, and Java's client may already have put that connection back in its pool, so a
   * second request on it sees the close (CI once read "header parser received no bytes").
   */
  private static void assert413(int size) throws Exception {
    for (var body : bodies(size)) {
      try (HttpClient fresh = HttpClient.newHttpClient()) {
        HttpResponse<String> response = fresh.send(post(body), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(response.statusCode()).as("body of %d bytes, length %s", size, body.contentLength()).isEqualTo(413);
      }
    }
  }

  /** A body of {@code size} bytes, once with its length announced and once chunked. */
  private static List<HttpRequest.BodyPublisher> bodies(int size) {
    byte[] tooLarge = new byte[size];
    Arrays.fill(tooLarge, (byte) ' ');
    tooLarge[0] = '{';
    return List.of(HttpRequest.BodyPublishers.ofByteArray(tooLarge),
        HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(tooLarge)));
  }

  private static HttpRequest post(HttpRequest.BodyPublisher body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize"))
        .timeout(Duration.ofMinutes(2))
        .header("Content-Type", "application/json")
        .POST(body).build();
  }
}
