package io.crigate.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.adjust.ResourceAnnotation;
import io.crigate.spi.adjust.ResourceRequirements;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real AdmissionReview JSON in, JSONPatch out, over TLS with a certificate made for the test. */
class WebhookServerTest {

  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir
  static Path dir;
  static WebhookServer server;
  static HttpClient client;

  @BeforeAll
  static void start() throws Exception {
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        "-subj", "/CN=crigate-webhook", "-addext", "subjectAltName=IP:127.0.0.1",
        "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true).start();
    String output = new String(openssl.getInputStream().readAllBytes());
    assertThat(openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0).as(output).isTrue();
    server = new WebhookServer("127.0.0.1", 0, cert, key);

    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(cert)) {
      trust.setCertificateEntry("webhook", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    client = HttpClient.newBuilder().sslContext(tls).build();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> post(String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:%d%s".formatted(server.port(), WebhookServer.PATH)))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** An AdmissionReview as the API server sends it for a pod CREATE. */
  static String review(String podMetadata, String podSpec) {
    return """
        {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{
          "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
          "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
          "requestKind":{"group":"","version":"v1","kind":"Pod"},"requestResource":{"group":"","version":"v1","resource":"pods"},
          "name":"web","namespace":"shop","operation":"CREATE",
          "userInfo":{"username":"system:serviceaccount:kube-system:replicaset-controller","groups":["system:serviceaccounts"]},
          "object":{"apiVersion":"v1","kind":"Pod","metadata":%s,"spec":%s},
          "oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}}
        """.formatted(podMetadata, podSpec);
  }

  static final String SPEC = """
      {"initContainers":[{"name":"init","image":"busybox"}],
       "containers":[
        {"name":"app","image":"nginx","resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}}},
        {"name":"sidecar","image":"envoy","resources":{"requests":{"cpu":"250m"}}}]}
      """;

  static JsonNode response(HttpResponse<String> http) throws Exception {
    assertThat(http.statusCode()).as(http.body()).isEqualTo(200);
    JsonNode out = JSON.readTree(http.body());
    assertThat(out.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(out.path("kind").asText()).isEqualTo("AdmissionReview");
    assertThat(out.path("response").path("uid").asText()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
    assertThat(out.path("response").path("allowed").asBoolean()).isTrue();
    return out.path("response");
  }

  static JsonNode patch(JsonNode response) throws Exception {
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    return JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
  }

  @Test
  void aPodWithoutAnnotationsGetsTheAnnotationsObject() throws Exception {
    JsonNode patch = patch(response(post(review("{\"name\":\"web\",\"namespace\":\"shop\"}", SPEC))));

    assertThat(patch).hasSize(1);
    assertThat(patch.get(0).path("op").asText()).isEqualTo("add");
    assertThat(patch.get(0).path("path").asText()).isEqualTo("/metadata/annotations");
    Map<String, ResourceRequirements> parsed = ResourceAnnotation.parse(patch.get(0).path("value").path(ResourceAnnotation.KEY).asText());
    // 2 CPUs = 2000 m, 1Gi = 2^30 bytes; the sidecar requests 250 m and limits nothing
    assertThat(parsed).containsEntry("app", new ResourceRequirements(2000, 2000, 1L << 30, 1L << 30))
        .containsEntry("sidecar", new ResourceRequirements(250, 0, 0, 0))
        .containsEntry("init", ResourceRequirements.NONE);
  }

  @Test
  void aPodWithAnnotationsGetsOneEscapedKey() throws Exception {
    JsonNode patch = patch(response(post(review("{\"name\":\"web\",\"annotations\":{\"team\":\"a\"}}", SPEC))));

    assertThat(patch).hasSize(1);
    assertThat(patch.get(0).path("op").asText()).isEqualTo("add");
    assertThat(patch.get(0).path("path").asText()).isEqualTo("/metadata/annotations/resources.crigate.io~1containers");
    assertThat(ResourceAnnotation.parse(patch.get(0).path("value").asText())).containsKeys("app", "sidecar", "init");
  }

  @Test
  void malformedReviewsAre400WithAReason() throws Exception {
    HttpResponse<String> notJson = post("{\"kind\":");
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(notJson.body()).contains("not JSON");

    HttpResponse<String> noUid = post("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{}}");
    assertThat(noUid.statusCode()).isEqualTo(400);
    assertThat(noUid.body()).contains("request.uid");

    HttpResponse<String> v1beta1 = post("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1beta1\"}");
    assertThat(v1beta1.statusCode()).isEqualTo(400);
    assertThat(v1beta1.body()).contains("admission.k8s.io/v1");
  }

  @Test
  void aPodItCannotReadIsAllowedUnchangedWithAWarning() throws Exception {
    JsonNode noSpec = response(post(review("{\"name\":\"web\"}", "{}")));
    assertThat(noSpec.has("patch")).isFalse();
    assertThat(noSpec.path("warnings").get(0).asText()).contains("shop/web").contains("spec.containers");

    JsonNode badQuantity = response(post(review("{\"name\":\"web\"}",
        "{\"containers\":[{\"name\":\"app\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}")));
    assertThat(badQuantity.has("patch")).isFalse();
    assertThat(badQuantity.path("warnings").get(0).asText()).contains("app");
  }
}
