package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Bearer challenge flow against a test-only registry front and token endpoint (docker-registry
 * here can only do Basic without a JWT-issuing service). The same server serves a tampered
 * manifest for the digest check, counts fetches for the caches, and misbehaves on request: tag
 * {@code slow} trickles its body a byte at a time, {@code huge} and {@code huge-chunked} send 5 MiB.
 */
class TokenRegistryTest {

  private static final String USER = "robot";
  private static final String PASSWORD = "token-secret-42";
  private static final String TOKEN = "issued-token";
  private static final byte[] MANIFEST = """
      {"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
       "config":{"mediaType":"application/vnd.docker.container.image.v1+json","size":2,"digest":"sha256:%s"},
       "layers":[{"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","size":54917164,"digest":"sha256:%s"},
                 {"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","size":1234,"digest":"sha256:%s"}]}"""
      .formatted("0".repeat(64), "1".repeat(64), "2".repeat(64)).getBytes(StandardCharsets.UTF_8);
  private static final String DIGEST = RegistryClient.sha256(MANIFEST);

  private HttpServer server;
  private String host;
  private final List<String> tokenQueries = new CopyOnWriteArrayList<>();
  private final AtomicInteger manifestFetches = new AtomicInteger();
  private final AtomicInteger tokenRequests = new AtomicInteger();
  private final AtomicInteger registryRequests = new AtomicInteger();
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private volatile boolean stopped;
  /** The realm the registry names; a test may point it at another host. */
  private volatile String realm;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    host = "127.0.0.1:" + server.getAddress().getPort();
    server.createContext("/token", this::token);
    server.createContext("/v2/", this::manifest);
    server.setExecutor(handlers);
    server.start();
    realm = "http://%s/token".formatted(host);
  }

  @AfterEach
  void stop() throws InterruptedException {
    stopped = true;
    server.stop(0);
    handlers.shutdownNow();
    handlers.awaitTermination(10, TimeUnit.SECONDS);
  }

  private void token(HttpExchange exchange) throws IOException {
    tokenRequests.incrementAndGet();
    String expected = "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
      reply(exchange, 401, "{\"details\":\"bad credentials\"}".getBytes(StandardCharsets.UTF_8), null);
      return;
    }
    tokenQueries.add(exchange.getRequestURI().getQuery());
    reply(exchange, 200, ("{\"token\":\"" + TOKEN + "\",\"expires_in\":300}").getBytes(StandardCharsets.UTF_8), null);
  }

  private void manifest(HttpExchange exchange) throws IOException {
    registryRequests.incrementAndGet();
    String repository = exchange.getRequestURI().getPath().replaceFirst("^/v2/(.*)/manifests/.*$", "$1");
    if (!("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
      exchange.getResponseHeaders().add("WWW-Authenticate",
          "Bearer realm=\"%s\",service=\"test-registry\",scope=\"repository:%s:pull\"".formatted(realm, repository));
      reply(exchange, 401, new byte[0], null);
      return;
    }
    manifestFetches.incrementAndGet();
    String reference = exchange.getRequestURI().getPath().replaceFirst(".*/manifests/", "");
    switch (reference) {
      case "slow" -> trickle(exchange);
      case "huge" -> reply(exchange, 200, new byte[5 << 20], null);
      case "huge-chunked" -> {
        exchange.sendResponseHeaders(200, 0);
        try (var out = exchange.getResponseBody()) {
          out.write(new byte[5 << 20]);
        } catch (IOException refused) {
          // the client stops reading at its limit
        }
      }
      default -> serve(exchange, reference);
    }
  }

  /** Headers at once, then one byte every 200 ms: only a deadline on the whole exchange ends it. */
  private void trickle(HttpExchange exchange) throws IOException {
    exchange.sendResponseHeaders(200, MANIFEST.length);
    try (var out = exchange.getResponseBody()) {
      for (int i = 0; i < MANIFEST.length && !stopped; i++) {
        out.write(MANIFEST[i]);
        out.flush();
        Thread.sleep(200);
      }
    } catch (IOException | InterruptedException gone) {
      // the client gave up, or the test ended
    }
  }

  private void serve(HttpExchange exchange, String reference) throws IOException {
    // "tampered" announces a digest the bytes do not have
    String announced = reference.equals("tampered") ? "sha256:" + "f".repeat(64) : DIGEST;
    reply(exchange, 200, MANIFEST, announced);
  }

  private static void reply(HttpExchange exchange, int status, byte[] body, String digest) throws IOException {
    exchange.getResponseHeaders().add("Content-Type", ManifestDocument.DOCKER_MANIFEST);
    if (digest != null) {
      exchange.getResponseHeaders().add("Docker-Content-Digest", digest);
    }
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (var out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private RegistryClient client(String password) {
    return new RegistryClient(config(password));
  }

  private RegistryClientConfig config(String password) {
    return RegistryClientConfig.defaults().withCredentials(host, new RegistryCredentials(USER, password));
  }

  @Test
  void aBearerChallengeIsAnsweredWithATokenFromItsRealm() {
    RegistryClient client = client(PASSWORD);

    ImageLayers layers = client.layers(host + "/team/app:v1");

    assertThat(layers.digest()).isEqualTo(DIGEST);
    assertThat(layers.layers()).containsExactly(
        new Layer("sha256:" + "1".repeat(64), 54917164), new Layer("sha256:" + "2".repeat(64), 1234));
    assertThat(tokenQueries).containsExactly("scope=repository:team/app:pull&service=test-registry");
  }

  /** Issue 16 item 11: the token request carries the registry's credentials, so only its own site gets it. */
  @Test
  void aRealmOnAnotherHostIsNeverAskedAndGetsNoCredentials() {
    realm = "http://localhost:%d/token".formatted(server.getAddress().getPort());

    assertThatThrownBy(() -> client(PASSWORD).layers(host + "/team/app:v1"))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining(realm).hasMessageContaining("neither on the registry's own host nor on the token realm allow-list")
        .hasMessageNotContaining(PASSWORD);
    assertThat(tokenRequests).hasValue(0);
  }

  @Test
  void aTokenIsReusedForTheSameRepositoryUntilItExpires() {
    RegistryClient client = client(PASSWORD);

    client.layers(host + "/team/app:v1");
    client.layers(host + "/team/app:v2");

    assertThat(tokenQueries).hasSize(1);
    assertThat(manifestFetches).hasValue(2);
  }

  @Test
  void aManifestWhoseBytesDoNotMatchTheAnnouncedDigestIsRefused() {
    assertThatThrownBy(() -> client(PASSWORD).layers(host + "/team/app:tampered"))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("refusing");
  }

  @Test
  void aManifestAskedByAnotherDigestIsRefused() {
    String other = "sha256:" + "e".repeat(64);
    assertThatThrownBy(() -> client(PASSWORD).layers(host + "/team/app@" + other))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining(other);
  }

  @Test
  void aDigestIsFetchedOnceThenServedFromCache() {
    RegistryClient client = client(PASSWORD);

    ImageLayers first = client.layers(host + "/team/app@" + DIGEST);
    ImageLayers second = client.layers(host + "/team/app@" + DIGEST);

    assertThat(second.layers()).isEqualTo(first.layers());
    assertThat(manifestFetches).hasValue(1);
  }

  @Test
  void aRefusedTokenRequestNamesTheRegistryButNotTheSecret() {
    String wrong = "not-the-password-77";
    assertThatThrownBy(() -> client(wrong).layers(host + "/team/app:v1"))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining(host)
        .satisfies(e -> assertThat(String.valueOf(e) + e.getCause()).doesNotContain(wrong));
  }

  /** Issue 16 item 11: a realm elsewhere is followed once the configuration allows its host. */
  @Test
  void aRealmOnAnAllowListedHostIsFollowed() {
    realm = "http://localhost:%d/token".formatted(server.getAddress().getPort());
    var client = new RegistryClient(config(PASSWORD).withTokenRealms(Set.of("localhost:" + server.getAddress().getPort())));

    assertThat(client.layers(host + "/team/app:v1").digest()).isEqualTo(DIGEST);
    assertThat(tokenRequests).hasValue(1);
  }

  /** Issue 16 item 11: the registry a pod names is contacted only if the allow-list has it. */
  @Test
  void aRegistryOffTheAllowListIsNeverContacted() {
    var client = new RegistryClient(config(PASSWORD).withAllowedRegistries(Set.of("registry.example.org")));

    assertThatThrownBy(() -> client.layers(host + "/team/app:v1"))
        .isInstanceOf(CrigateException.PermissionDenied.class)
        .hasMessageContaining(host).hasMessageContaining("allow-list");
    assertThat(registryRequests).hasValue(0);
    assertThat(new RegistryClient(config(PASSWORD).withAllowedRegistries(Set.of(host))).layers(host + "/team/app:v1").digest())
        .isEqualTo(DIGEST);
  }

  /** Issue 16 item 11: one token per repository asked about, so the map of them evicts. */
  @Test
  void tokensBeyondTheCacheSizeAreEvictedAndFetchedAgain() {
    var defaults = RegistryClientConfig.defaults();
    var client = new RegistryClient(config(PASSWORD).withLimits(1, defaults.connectTimeout(), defaults.timeout()));

    client.layers(host + "/team/app:v1");
    client.layers(host + "/team/web:v1");
    client.layers(host + "/team/app:v2");

    // a cache of two or more would have reused team/app's token
    assertThat(tokenQueries).containsExactly("scope=repository:team/app:pull&service=test-registry",
        "scope=repository:team/web:pull&service=test-registry", "scope=repository:team/app:pull&service=test-registry");
  }

  /** Issue 16 item 11: the deadline covers the body, not only the headers. */
  @Test
  @Timeout(60)
  void aBodyTrickledForeverEndsAtTheDeadline() {
    var defaults = RegistryClientConfig.defaults();
    var client = new RegistryClient(config(PASSWORD).withLimits(defaults.cachedTokens(), defaults.connectTimeout(), Duration.ofSeconds(1)));

    assertThatThrownBy(() -> client.layers(host + "/team/app:slow"))
        .isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageContaining("did not answer within 1 s");
  }

  /** Issue 16 item 11: a manifest is read up to 4 MiB, whether its length is announced or not. */
  @Test
  void aManifestAboveTheLimitIsRefusedUnparsed() {
    for (String tag : List.of("huge", "huge-chunked")) {
      assertThatThrownBy(() -> client(PASSWORD).layers(host + "/team/app:" + tag)).as(tag)
          .isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessageContaining("more than " + RegistryTransport.MAX_RESPONSE_BYTES + " bytes");
    }
  }

  /**
   * Issue 16 item 11: a registry that never completes the TCP handshake ends at the connect
   * timeout, well before the exchange's deadline. Its listen queue is filled first, so the kernel
   * drops further SYNs.
   */
  @Test
  @Timeout(60)
  void aRegistryThatNeverAcceptsEndsAtTheConnectTimeout() throws Exception {
    List<Socket> queued = new ArrayList<>();
    try (ServerSocket neverAccepts = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      for (int i = 0; i < 16; i++) {
        Socket socket = new Socket();
        try {
          socket.connect(neverAccepts.getLocalSocketAddress(), 500);
          queued.add(socket);
        } catch (SocketTimeoutException full) {
          socket.close();
          break;
        }
      }
      var defaults = RegistryClientConfig.defaults();
      var client = new RegistryClient(defaults.withLimits(defaults.cachedTokens(), Duration.ofSeconds(1), Duration.ofSeconds(45)));

      assertThatThrownBy(() -> client.layers("127.0.0.1:" + neverAccepts.getLocalPort() + "/team/app:v1"))
          .isInstanceOf(CrigateException.Unavailable.class)
          .hasMessageContaining("HttpConnectTimeoutException");
    } finally {
      for (Socket socket : queued) {
        socket.close();
      }
    }
  }
}
