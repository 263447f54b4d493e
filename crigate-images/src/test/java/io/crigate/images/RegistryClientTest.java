package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against the real registry of {@code scripts/infra/up.sh}. */
class RegistryClientTest {

  private final ObjectMapper json = new ObjectMapper();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private LocalRegistry registry;
  private String imageA;
  private String imageB;
  private RegistryClient client;

  @BeforeEach
  void setUp() {
    registry = LocalRegistry.fromEnv();
    imageA = LocalRegistry.image("CRIGATE_IMAGE_A");
    imageB = LocalRegistry.image("CRIGATE_IMAGE_B");
    client = client(RegistryClientConfig.defaults());
  }

  private RegistryClient client(RegistryClientConfig config) {
    return new RegistryClient(config, HttpClient.newHttpClient(), clock);
  }

  @Test
  void layerSizesAreTheCompressedBlobSizesTheRegistryStores() throws Exception {
    ImageLayers layers = client.layers(imageA);

    String repository = LocalRegistry.repository(imageA);
    assertThat(layers.reference()).isEqualTo(ImageRef.parse(imageA).toString());
    assertThat(layers.digest()).isEqualTo(registry.manifest(repository, "v1").digest());
    assertThat(layers.layers()).isNotEmpty();
    for (Layer layer : layers.layers()) {
      assertThat(layer.size()).as(layer.digest()).isEqualTo(registry.blobSize(repository, layer.digest()));
    }
  }

  @Test
  void imagesBuiltOnOneBaseShareItsLayerAndDifferAbove() {
    ImageLayers a = client.layers(imageA);
    ImageLayers b = client.layers(imageB);

    assertThat(a.layers().getFirst()).isEqualTo(b.layers().getFirst());
    assertThat(a.layers().getLast()).isNotEqualTo(b.layers().getLast());
  }

  @Test
  void aDigestPinnedReferenceGivesTheSameLayersAsItsTag() {
    ImageLayers byTag = client.layers(imageA);
    ImageRef pinned = ImageRef.parse(imageA).withDigest(byTag.digest());

    ImageLayers byDigest = client(RegistryClientConfig.defaults()).layers(pinned);

    assertThat(byDigest.digest()).isEqualTo(byTag.digest());
    assertThat(byDigest.layers()).isEqualTo(byTag.layers());
  }

  @Test
  void missingTagsAndRepositoriesAreNotFound() {
    ImageRef a = ImageRef.parse(imageA);
    assertThatThrownBy(() -> client.layers(a.name() + ":no-such-tag"))
        .isInstanceOf(CrigateException.NotFound.class).hasMessageContaining(a.repository());
    assertThatThrownBy(() -> client.layers(a.registry() + "/no/such-repo:v1"))
        .isInstanceOf(CrigateException.NotFound.class).hasMessageContaining("no/such-repo");
  }

  @Test
  void anUnreachableRegistryIsUnavailable() {
    // port 9 (discard) is closed on loopback here
    assertThatThrownBy(() -> client.layers("127.0.0.1:9/app:v1"))
        .isInstanceOf(CrigateException.Unavailable.class).hasMessageContaining("127.0.0.1:9");
  }

  @Test
  void anIndexResolvesToTheConfiguredPlatform() throws Exception {
    String repository = LocalRegistry.repository(imageA);
    var full = registry.manifest(repository, "v1");
    String baseOnly = pushBaseOnlyManifest(repository, full, "crigate-images-base-only");
    String index = """
        {"schemaVersion":2,"mediaType":"%s","manifests":[
          {"mediaType":"%s","digest":"%s","size":%d,"platform":{"os":"linux","architecture":"arm64","variant":"v8"}},
          {"mediaType":"%s","digest":"%s","size":%d,"platform":{"os":"linux","architecture":"amd64"}},
          {"mediaType":"%s","digest":"%s","size":%d,"platform":{"os":"unknown","architecture":"unknown"}}]}"""
        .formatted(ManifestDocument.OCI_INDEX,
            ManifestDocument.OCI_MANIFEST, full.digest(), full.body().length,
            ManifestDocument.OCI_MANIFEST, baseOnly, baseOnlyBytes.length,
            ManifestDocument.OCI_MANIFEST, full.digest(), full.body().length);
    registry.push(repository, "crigate-images-index", ManifestDocument.OCI_INDEX, index.getBytes(StandardCharsets.UTF_8));
    String reference = registry.host + "/" + repository + ":crigate-images-index";

    ImageLayers amd64 = client.layers(reference);
    ImageLayers arm64 = client(RegistryClientConfig.defaults().withPlatform(Platform.parse("linux/arm64/v8"))).layers(reference);

    assertThat(amd64.digest()).isEqualTo(baseOnly);
    assertThat(amd64.layers()).hasSize(1);
    assertThat(arm64.digest()).isEqualTo(full.digest());
    assertThat(arm64.layers()).hasSize(full.tree().path("layers").size());
    assertThatThrownBy(() -> client(RegistryClientConfig.defaults().withPlatform(Platform.parse("linux/s390x"))).layers(reference))
        .isInstanceOf(CrigateException.NotFound.class).hasMessageContaining("linux/s390x");
  }

  @Test
  void aTagIsAskedAgainOnceItsAnswerExpires() throws Exception {
    String repository = LocalRegistry.repository(imageA);
    var full = registry.manifest(repository, "v1");
    String tag = "crigate-images-moving";
    String reference = pushedAs(tag, repository, full);
    assertThat(client.layers(reference).digest()).isEqualTo(full.digest());

    String moved = pushBaseOnlyManifest(repository, full, tag);

    // within the TTL the tag's old answer stands; after it the registry is asked again
    assertThat(client.layers(reference).digest()).isEqualTo(full.digest());
    clock.advance(RegistryClientConfig.defaults().tagTtl().plusSeconds(1));
    assertThat(client.layers(reference).digest()).isEqualTo(moved);
    assertThat(client.cached(full.digest())).isPresent();
  }

  @Test
  void layersIfKnownNeverAsksTheRegistry() throws Exception {
    String repository = LocalRegistry.repository(imageA);
    var full = registry.manifest(repository, "v1");
    String reference = pushedAs("crigate-images-known", repository, full);
    String byDigest = registry.host + "/" + repository + "@" + full.digest();

    assertThat(client.layersIfKnown(reference)).as("tag not fetched yet").isEmpty();
    assertThat(client.layersIfKnown(byDigest)).as("digest not fetched yet").isEmpty();
    ImageLayers fetched = client.layers(reference);
    assertThat(client.layersIfKnown(reference)).contains(fetched);
    assertThat(client.layersIfKnown(byDigest).map(ImageLayers::layers)).contains(fetched.layers());
    // a tag past its TTL must be asked again, so it is not known
    clock.advance(RegistryClientConfig.defaults().tagTtl().plusSeconds(1));
    assertThat(client.layersIfKnown(reference)).isEmpty();
    RegistryClient onlyLocal = client(RegistryClientConfig.defaults().withAllowedRegistries(Set.of(registry.host)));
    assertThatThrownBy(() -> onlyLocal.layersIfKnown("elsewhere.example/app:v1"))
        .isInstanceOf(CrigateException.PermissionDenied.class).hasMessageContaining("elsewhere.example");
  }

  /** Pushes {@code manifest} under {@code tag} and returns the reference that names it. */
  private String pushedAs(String tag, String repository, LocalRegistry.Manifest manifest) throws Exception {
    registry.push(repository, tag, ManifestDocument.OCI_MANIFEST, manifest.body());
    return registry.host + "/" + repository + ":" + tag;
  }

  private byte[] baseOnlyBytes;

  /** Pushes a manifest with the same config and only the first (base) layer. */
  private String pushBaseOnlyManifest(String repository, LocalRegistry.Manifest full, String tag) throws Exception {
    ObjectNode manifest = full.tree().deepCopy();
    var layers = manifest.putArray("layers");
    layers.add(full.tree().path("layers").get(0));
    baseOnlyBytes = json.writeValueAsBytes(manifest);
    String digest = registry.push(repository, tag, ManifestDocument.OCI_MANIFEST, baseOnlyBytes);
    assertThat(digest).isEqualTo(RegistryClient.sha256(baseOnlyBytes));
    return digest;
  }

  @Test
  void printedConfigurationHidesPasswords() {
    var config = RegistryClientConfig.defaults().withCredentials("r.example", new RegistryCredentials("u", "s3cret"));
    assertThat(config.toString()).doesNotContain("s3cret");
    assertThat(config.credentials().get("r.example").toString()).doesNotContain("s3cret");
  }
}
