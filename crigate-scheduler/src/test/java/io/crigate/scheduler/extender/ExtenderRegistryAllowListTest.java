package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.images.RegistryCredentials;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 16 item 11: a pod naming a registry off the allow-list does not make the extender connect
 * there; its images score as unknown layers, and the log says so once per registry.
 */
class ExtenderRegistryAllowListTest {

  private static final String SECRET = "registry-password-1234";

  private final AtomicInteger registryRequests = new AtomicInteger();
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private HttpServer registry;
  private ExtenderServer server;
  private final NodeTable nodes = new NodeTable();

  @BeforeEach
  void start() throws Exception {
    registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    registry.createContext("/", exchange -> {
      registryRequests.incrementAndGet();
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
    });
    registry.start();
    String host = "127.0.0.1:" + registry.getAddress().getPort();
    var config = RegistryClientConfig.defaults().withAllowedRegistries(Set.of("registry.example.org"))
        .withCredentials(host, new RegistryCredentials("robot", SECRET));
    server = new ExtenderServer("127.0.0.1", 0, "/crigate", false, new LayerIndex(nodes), new NodeLoads(nodes),
        new RegistryClient(config)::layers);
    log.start();
    ((Logger) LoggerFactory.getLogger(RefusedRegistries.class)).addAppender(log);
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(RefusedRegistries.class)).detachAppender(log);
    server.close();
    registry.stop(0);
  }

  @Test
  void imagesOfAnotherRegistryAreNotFetchedAndScoreAsUnknown() throws Exception {
    String host = "127.0.0.1:" + registry.getAddress().getPort();
    String body = Files.readString(Path.of("src/test/resources/extender/args-nodenames.json")).replace("127.0.0.1:5000", host);
    HttpClient http = HttpClient.newHttpClient();
    var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize"))
        .timeout(Duration.ofMinutes(1)).POST(HttpRequest.BodyPublishers.ofString(body)).build();

    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(new ObjectMapper().readTree(response.body())).hasSize(3)
          .allSatisfy(priority -> assertThat(priority.path("Score").asInt()).isEqualTo(10));
    }

    assertThat(registryRequests).hasValue(0);
    assertThat(log.list).singleElement().satisfies(line -> assertThat(line.getFormattedMessage())
        .contains("registry " + host).contains("unknown layers").contains("allow-list").doesNotContain(SECRET));
  }
}
