package io.crigate.images;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.ImageRef;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * The real registry {@code scripts/infra/up.sh} starts, seen through plain HTTP so tests can check
 * the client against what the registry itself says and push test manifests.
 */
final class LocalRegistry {

  final String host;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  private LocalRegistry(String host) {
    this.host = host;
  }

  /**
   * The registry named by the infrastructure env ({@code . /tmp/crigate-infra/env}). Without it the
   * test fails rather than skips: a green build must mean the registry code ran against a registry.
   */
  static LocalRegistry fromEnv() {
    return new LocalRegistry(image("CRIGATE_REGISTRY"));
  }

  static String image(String variable) {
    String value = System.getenv(variable);
    if (value == null) {
      throw new IllegalStateException(variable + " unset: run scripts/infra/up.sh and source its env file"
          + " (scripts/test.sh does both)");
    }
    return value;
  }

  /** The manifest as raw bytes, with the digest the registry announces for it. */
  record Manifest(byte[] body, String digest, JsonNode tree) {}

  Manifest manifest(String repository, String reference) throws IOException, InterruptedException {
    var response = http.send(HttpRequest.newBuilder(uri("/v2/" + repository + "/manifests/" + reference))
        .header("Accept", ManifestDocument.ACCEPT).build(), HttpResponse.BodyHandlers.ofByteArray());
    check(response, 200);
    return new Manifest(response.body(), response.headers().firstValue("Docker-Content-Digest").orElseThrow(),
        json.readTree(response.body()));
  }

  /** Compressed blob size as the registry stores it (Content-Length of a HEAD). */
  long blobSize(String repository, String digest) throws IOException, InterruptedException {
    var response = http.send(HttpRequest.newBuilder(uri("/v2/" + repository + "/blobs/" + digest))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
    check(response, 200);
    return response.headers().firstValueAsLong("Content-Length").orElseThrow();
  }

  /** PUTs a manifest and returns the digest the registry gives it. */
  String push(String repository, String reference, String mediaType, byte[] body) throws IOException, InterruptedException {
    var response = http.send(HttpRequest.newBuilder(uri("/v2/" + repository + "/manifests/" + reference))
        .header("Content-Type", mediaType).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    check(response, 201);
    return response.headers().firstValue("Docker-Content-Digest").orElseThrow();
  }

  static String repository(String image) {
    return ImageRef.parse(image).repository();
  }

  private URI uri(String path) {
    return URI.create("http://" + host + path);
  }

  private static void check(HttpResponse<?> response, int expected) {
    if (response.statusCode() != expected) {
      throw new IllegalStateException("registry answered %d to %s: %s".formatted(
          response.statusCode(), response.uri(), response.body()));
    }
  }
}
