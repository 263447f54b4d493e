package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x509.GeneralName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 11: the extender over real TLS, with certificates made for the test. With a
 * client CA it answers only clients holding a certificate that CA signed, which is what
 * kube-scheduler's extender {@code tlsConfig} (caFile, certFile, keyFile) presents.
 */
class ExtenderTlsTest {

  @TempDir
  static Path dir;

  static TestPki.Identity serverCa;
  static TestPki.Identity clientCa;
  static TestPki.Identity scheduler;
  static TestPki.Identity stranger;
  static ExtenderServer mutual;
  static ExtenderServer serverOnly;
  static final NodeTable nodes = new NodeTable();
  static String body;

  @BeforeAll
  static void start() throws Exception {
    serverCa = TestPki.authority("extender CA");
    clientCa = TestPki.authority("scheduler client CA");
    TestPki.Identity server = serverCa.sign("CN=crigate-extender", false,
        new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost"));
    scheduler = clientCa.sign("CN=kube-scheduler", false);
    stranger = TestPki.authority("another CA").sign("CN=kube-scheduler", false);
    Path cert = server.certFile(dir, "server");
    Path key = server.keyFile(dir, "server");
    Path ca = clientCa.certFile(dir, "client-ca");
    mutual = start(new ExtenderTls(cert, key, Optional.of(ca)));
    serverOnly = start(new ExtenderTls(cert, key, Optional.empty()));
    body = Files.readString(Path.of("src/test/resources/extender/args-nodenames.json"));
  }

  private static ExtenderServer start(ExtenderTls tls) {
    return new ExtenderServer(new ExtenderEndpoint("127.0.0.1", 0, "/crigate", ExtenderEndpoint.DEFAULT_MAX_REQUEST_BYTES, Optional.of(tls)),
        false, new LayerIndex(nodes), new NodeLoads(nodes), ImageLayerSource.inMemory(image -> {
          throw new CrigateException.NotFound(image);
        }), null);
  }

  @AfterAll
  static void stop() {
    mutual.close();
    serverOnly.close();
  }

  @Test
  void aClientWithACertificateFromTheClientCaIsAnswered() throws Exception {
    HttpResponse<String> response = prioritize(TestPki.clientContext(serverCa, scheduler), "https", mutual);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(new ObjectMapper().readTree(response.body())).hasSize(3);
  }

  @Test
  void aClientWithoutACertificateIsRefusedInTheHandshake() throws Exception {
    SSLContext anonymous = TestPki.clientContext(serverCa, null);

    assertThatThrownBy(() -> prioritize(anonymous, "https", mutual)).isInstanceOf(IOException.class);
  }

  @Test
  void aCertificateFromAnotherCaIsRefusedInTheHandshake() throws Exception {
    SSLContext forged = TestPki.clientContext(serverCa, stranger);

    assertThatThrownBy(() -> prioritize(forged, "https", mutual)).isInstanceOf(IOException.class);
  }

  @Test
  void plainHttpGetsNoAnswerFromTheTlsPort() {
    assertThatThrownBy(() -> prioritize(SSLContext.getDefault(), "http", mutual)).isInstanceOf(IOException.class);
  }

  @Test
  void withoutAClientCaAnyTlsClientIsAnswered() throws Exception {
    assertThat(prioritize(TestPki.clientContext(serverCa, null), "https", serverOnly).statusCode()).isEqualTo(200);
  }

  private static HttpResponse<String> prioritize(SSLContext tls, String scheme, ExtenderServer server)
      throws IOException, InterruptedException {
    try (HttpClient client = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(30)).build()) {
      return client.send(HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + server.port() + "/crigate/prioritize"))
          .timeout(Duration.ofMinutes(1))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
