package io.crigate.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A manifest as the registry sent it: either one image's layers or an index of per-platform manifests. */
sealed interface ManifestDocument {

  String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
  String OCI_INDEX = "application/vnd.oci.image.index.v1+json";
  String DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
  String DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json";
  String ACCEPT = String.join(", ", OCI_INDEX, DOCKER_LIST, OCI_MANIFEST, DOCKER_MANIFEST);

  record ImageManifest(List<Layer> layers) implements ManifestDocument {}

  record Index(List<Entry> manifests) implements ManifestDocument {

    /** The first entry for the platform; attestation entries ({@code unknown/unknown}) never match. */
    Entry select(Platform platform, String image) {
      return manifests.stream()
          .filter(entry -> platform.matches(entry.os(), entry.architecture(), entry.variant()))
          .findFirst()
          .orElseThrow(() -> new CrigateException.NotFound("image %s has no manifest for platform %s".formatted(image, platform)));
    }
  }

  record Entry(String digest, String os, String architecture, String variant) {}

  static ManifestDocument parse(ObjectMapper json, byte[] body, String contentType, String image) {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (IOException e) {
      throw invalid(image, "not JSON");
    }
    if (root == null || !root.isObject()) {
      throw invalid(image, "not a JSON object");
    }
    if (root.path("schemaVersion").asInt() != 2) {
      throw invalid(image, "schemaVersion %s is not supported".formatted(root.path("schemaVersion")));
    }
    String mediaType = root.path("mediaType").asText(contentType.replaceFirst(";.*", "").strip());
    boolean index = mediaType.equals(OCI_INDEX) || mediaType.equals(DOCKER_LIST)
        || (!mediaType.equals(OCI_MANIFEST) && !mediaType.equals(DOCKER_MANIFEST) && root.has("manifests"));
    return index ? parseIndex(root, image) : parseManifest(root, image);
  }

  private static ImageManifest parseManifest(JsonNode root, String image) {
    JsonNode layers = root.path("layers");
    if (!layers.isArray()) {
      throw invalid(image, "no layers array");
    }
    var result = new ArrayList<Layer>();
    for (JsonNode layer : layers) {
      try {
        result.add(new Layer(layer.path("digest").asText(""), layer.path("size").asLong(-1)));
      } catch (CrigateException.InvalidArgument e) {
        throw invalid(image, e.getMessage());
      }
    }
    return new ImageManifest(List.copyOf(result));
  }

  private static Index parseIndex(JsonNode root, String image) {
    var entries = new ArrayList<Entry>();
    for (JsonNode manifest : root.path("manifests")) {
      JsonNode platform = manifest.path("platform");
      entries.add(new Entry(manifest.path("digest").asText(""), platform.path("os").asText(""),
          platform.path("architecture").asText(""), platform.path("variant").asText("")));
    }
    return new Index(List.copyOf(entries));
  }

  private static CrigateException invalid(String image, String problem) {
    return new CrigateException.FailedPrecondition("manifest of %s is unusable: %s".formatted(image, problem));
  }
}
