package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Pushes images to a registry through the distribution API (blob uploads, then an OCI manifest), and
 * deletes their manifests again. A manifest states each layer's size; the registry checks only that
 * the blob exists, so small blobs can stand for layers of catalog size for a reader of manifests.
 */
final class ManifestPush implements AutoCloseable {

  private static final String MANIFEST = "application/vnd.oci.image.manifest.v1+json";

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper mapper = new ObjectMapper();
  private final String registry;
  private final List<URI> pushed = new ArrayList<>();

  ManifestPush(String registry) {
    this.registry = registry;
  }

  /** Pushes {@code image} (a reference {@code registry/repository:tag}) with blobs from {@code content}. */
  void push(ImageLayers image, Function<String, byte[]> content) throws IOException, InterruptedException {
    String path = image.reference().substring(registry.length() + 1);
    String repository = path.substring(0, path.lastIndexOf(':'));
    String tag = path.substring(path.lastIndexOf(':') + 1);
    byte[] config = "{\"architecture\":\"amd64\",\"os\":\"linux\"}".getBytes(StandardCharsets.UTF_8);
    upload(repository, config);
    ObjectNode manifest = mapper.createObjectNode().put("schemaVersion", 2).put("mediaType", MANIFEST);
    manifest.putObject("config").put("mediaType", "application/vnd.oci.image.config.v1+json")
        .put("digest", ScaleCluster.sha256(config)).put("size", config.length);
    ArrayNode layers = manifest.putArray("layers");
    for (Layer layer : image.layers()) {
      upload(repository, content.apply(layer.digest()));
      layers.addObject().put("mediaType", "application/vnd.oci.image.layer.v1.tar+gzip")
          .put("digest", layer.digest()).put("size", layer.size());
    }
    URI uri = base(repository).resolve("manifests/" + tag);
    expect(201, http.send(HttpRequest.newBuilder(uri).header("Content-Type", MANIFEST)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(manifest))).build(),
        HttpResponse.BodyHandlers.ofString()), "manifest " + image.reference());
    pushed.add(uri);
  }

  private void upload(String repository, byte[] blob) throws IOException, InterruptedException {
    HttpResponse<String> started = http.send(HttpRequest.newBuilder(base(repository).resolve("blobs/uploads/"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    expect(202, started, "blob upload");
    String location = started.headers().firstValue("Location").orElseThrow();
    URI at = URI.create("http://" + registry).resolve(location);
    String separator = at.getQuery() == null ? "?" : "&";
    expect(201, http.send(HttpRequest.newBuilder(URI.create(at + separator + "digest=" + ScaleCluster.sha256(blob)))
        .header("Content-Type", "application/octet-stream").PUT(HttpRequest.BodyPublishers.ofByteArray(blob)).build(),
        HttpResponse.BodyHandlers.ofString()), "blob");
  }

  private URI base(String repository) {
    return URI.create("http://" + registry + "/v2/" + repository + "/");
  }

  private static void expect(int status, HttpResponse<String> response, String what) {
    if (response.statusCode() != status) {
      throw new IllegalStateException("registry refused %s: HTTP %d %s".formatted(what, response.statusCode(), response.body()));
    }
  }

  /** Deletes the pushed manifests (the blobs stay until the registry's garbage collection). */
  @Override
  public void close() throws IOException, InterruptedException {
    for (URI manifest : pushed) {
      HttpResponse<Void> head = http.send(HttpRequest.newBuilder(manifest).header("Accept", MANIFEST)
          .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
      String digest = head.headers().firstValue("Docker-Content-Digest").orElse(null);
      if (digest != null) {
        String tag = manifest.getPath().substring(manifest.getPath().lastIndexOf('/') + 1);
        http.send(HttpRequest.newBuilder(URI.create(manifest.toString().replace("manifests/" + tag, "manifests/" + digest)))
            .DELETE().build(), HttpResponse.BodyHandlers.discarding());
      }
    }
  }
}
