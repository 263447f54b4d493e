package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extender scores on its event loops and waits on a registry only on a thread of its own: a
 * pod whose image must be fetched holds neither the health probe, nor the metrics, nor other pods'
 * calls on other connections, and an image seen once is scored without asking again.
 */
class ExtenderWaitingCallsTest {

  private static final String SLOW = "127.0.0.1:5000/crigate/a:1";
  private static final String BASE = "127.0.0.1:5000/crigate/base:1";
  private static final String KNOWN = "127.0.0.1:5000/crigate/known:1";

  private final NodeTable nodes = new NodeTable();
  private final Map<String, ImageLayers> known = new ConcurrentHashMap<>();
  private final List<Thread> fetchedOn = new CopyOnWriteArrayList<>();
  private final CountDownLatch fetching = new CountDownLatch(1);
  private final CountDownLatch registryAnswers = new CountDownLatch(1);
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
  private ExtenderServer server;
  private String body;

  /** Like a RegistryClient: knows what it has fetched; a fetch waits until the test lets the "registry" answer. */
  private final ImageLayerSource registry = ImageLayerSource.of(image -> {
    ImageLayers cached = known.get(image);
    if (cached != null) {
      return cached;
    }
    fetchedOn.add(Thread.currentThread());
    fetching.countDown();
    try {
      assertThat(registryAnswers.await(1, TimeUnit.MINUTES)).as("the test lets the registry answer").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return known.computeIfAbsent(image, ExtenderWaitingCallsTest::layers);
  }, image -> Optional.ofNullable(known.get(image)));

  @BeforeEach
  void start() throws Exception {
    body = Files.readString(Path.of("src/test/resources/extender/args-nodenames.json"));
    server = new ExtenderServer(ExtenderEndpoint.plain("127.0.0.1", 0, "/crigate"), false, new LayerIndex(nodes), new NodeLoads(nodes),
        registry, new PrometheusRegistry());
  }

  @AfterEach
  void stop() {
    registryAnswers.countDown();
    server.close();
  }

  @Test
  void aFetchWaitsOnItsOwnThreadWhileTheRestOfThePortIsServed() throws Exception {
    known.put(BASE, layers(BASE));
    known.put(KNOWN, layers(KNOWN));
    CompletableFuture<HttpResponse<String>> waiting = http.sendAsync(prioritize(body), HttpResponse.BodyHandlers.ofString());
    assertThat(fetching.await(1, TimeUnit.MINUTES)).as("the call asks the registry").isTrue();

    // each on a connection of its own, answered while the fetch above still waits
    try (HttpClient other = HttpClient.newHttpClient()) {
      assertThat(other.send(get("/healthz"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      assertThat(other.send(get("/metrics"), HttpResponse.BodyHandlers.ofString()).body())
          .contains("crigate_extender_request_duration_seconds");
      HttpResponse<String> knownPod = other.send(prioritize(body.replace(SLOW, KNOWN)), HttpResponse.BodyHandlers.ofString());
      assertThat(knownPod.statusCode()).isEqualTo(200);
      assertThat(new ObjectMapper().readTree(knownPod.body())).hasSize(3);
    }
    assertThat(waiting).isNotDone();

    registryAnswers.countDown();
    HttpResponse<String> answered = waiting.get(1, TimeUnit.MINUTES);
    assertThat(answered.statusCode()).isEqualTo(200);
    assertThat(new ObjectMapper().readTree(answered.body())).hasSize(3);
    assertThat(fetchedOn).singleElement().satisfies(thread -> assertThat(thread.isVirtual()).as("fetched on a virtual thread").isTrue());
  }

  /**
   * A client that pipelines sends its next request before the answer: that request waits its turn
   * behind the fetching call, so the answers arrive in the order of the requests.
   */
  @Test
  void requestsPipelinedBehindAFetchAreAnsweredInTheirOrder() throws Exception {
    byte[] json = body.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      out.write(("POST /crigate/prioritize HTTP/1.1\r\nHost: extender\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(json);
      out.write("GET /healthz HTTP/1.1\r\nHost: extender\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(fetching.await(1, TimeUnit.MINUTES)).as("the first call asks the registry").isTrue();
      Thread.sleep(200); // time for the health check, had it not waited its turn, to be answered first
      registryAnswers.countDown();

      InputStream in = socket.getInputStream();
      StringBuilder answers = new StringBuilder();
      byte[] chunk = new byte[8192];
      while (answers.indexOf("\r\n\r\nok\n") < 0 || answers.indexOf("}]") < 0) {
        int read = in.read(chunk);
        assertThat(read).as("both answers before the connection ends: %s", answers).isPositive();
        answers.append(new String(chunk, 0, read, StandardCharsets.UTF_8));
      }
      assertThat(answers.indexOf("}]")).as("the prioritize answer comes first: %s", answers)
          .isLessThan(answers.indexOf("\r\n\r\nok\n"));
    }
  }

  @Test
  void anImageFetchedOnceIsScoredWithoutAskingAgain() throws Exception {
    registryAnswers.countDown();
    for (int call = 0; call < 3; call++) {
      assertThat(http.send(prioritize(body), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    assertThat(fetchedOn).as("one fetch per image, on the first call").hasSize(2);
  }

  @Test
  void aVerbAnswersOnlyPost() throws Exception {
    HttpResponse<String> response = http.send(get("/crigate/prioritize"), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow")).hasValue("POST");
    assertThat(http.send(get("/crigate/elsewhere"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
  }

  private HttpRequest prioritize(String json) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize"))
        .timeout(Duration.ofMinutes(1)).POST(HttpRequest.BodyPublishers.ofString(json)).build();
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).timeout(Duration.ofMinutes(1)).GET().build();
  }

  private static ImageLayers layers(String image) {
    String digest = "sha256:%064x".formatted(image.hashCode() & 0xffffffffL);
    return new ImageLayers(image, digest, List.of(new Layer(digest, 1_000_000)));
  }
}
