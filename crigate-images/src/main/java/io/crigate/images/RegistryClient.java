package io.crigate.images;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.net.http.HttpClient;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Looks up an image's layers and their compressed sizes in its registry, through the OCI
 * distribution API. Image indexes and Docker manifest lists resolve to the configured platform.
 *
 * <p>Every manifest is checked against the digest it was asked by, or the one the registry
 * announced; a mismatch is refused. Answers are cached by digest (content never changes under a
 * digest); which digest a tag names is trusted only for {@link RegistryClientConfig#tagTtl()}.
 */
public final class RegistryClient {

  /** Indexes may nest; more than this is a loop or abuse. */
  private static final int MAX_INDEX_DEPTH = 3;

  private record TagAnswer(String digest, Instant expires) {}

  private final RegistryClientConfig config;
  private final RegistryTransport transport;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();
  private final BoundedCache<String, ImageLayers> byDigest;
  private final BoundedCache<String, TagAnswer> byTag;

  public RegistryClient(RegistryClientConfig config) {
    this(config, HttpClient.newBuilder()
        .connectTimeout(config.connectTimeout())
        .followRedirects(HttpClient.Redirect.NORMAL)
        .build(), Clock.systemUTC());
  }

  RegistryClient(RegistryClientConfig config, HttpClient http, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.transport = new RegistryTransport(http, config, clock);
    this.byDigest = new BoundedCache<>(config.cachedImages());
    this.byTag = new BoundedCache<>(config.cachedImages());
  }

  public ImageLayers layers(String reference) {
    return layers(ImageRef.parse(reference));
  }

  /**
   * @throws CrigateException.NotFound the registry has no such image, or none for the platform
   * @throws CrigateException.Unavailable the registry cannot be reached or failed
   * @throws CrigateException.FailedPrecondition access refused, digest mismatch, unusable manifest
   * @throws CrigateException.PermissionDenied the image's registry is not on the allow-list (nothing was sent)
   */
  public ImageLayers layers(ImageRef image) {
    return known(image).orElseGet(() -> {
      ImageLayers resolved = fetch(image, image.manifestReference(), image.digest(), 0);
      return new ImageLayers(image.toString(), resolved.digest(), resolved.layers());
    });
  }

  /**
   * The image's layers if this client can tell them without asking the registry (a digest it has
   * fetched, or a tag within its TTL); empty where {@link #layers(String)} would have to fetch. For a
   * caller that must not wait on the network, e.g. an event loop. Refuses an image of a registry off
   * the allow-list, and an unparsable reference, as {@link #layers(String)} does.
   */
  public Optional<ImageLayers> layersIfKnown(String reference) {
    return known(ImageRef.parse(reference));
  }

  private Optional<ImageLayers> known(ImageRef image) {
    if (!config.allows(image)) {
      throw new CrigateException.PermissionDenied("registry %s is not on the registry allow-list (images.registry.allowedRegistries)"
          .formatted(image.registry()));
    }
    String digest = image.digest() != null ? image.digest() : cachedTag(image);
    ImageLayers cached = digest == null ? null : byDigest.get(digest);
    return cached == null ? Optional.empty()
        : Optional.of(new ImageLayers(image.toString(), cached.digest(), cached.layers()));
  }

  /** Layers already known for a manifest or index digest, without asking the registry. */
  public Optional<ImageLayers> cached(String digest) {
    return Optional.ofNullable(byDigest.get(digest));
  }

  private ImageLayers fetch(ImageRef image, String reference, String expectedDigest, int depth) {
    if (depth > MAX_INDEX_DEPTH) {
      throw new CrigateException.FailedPrecondition("image %s: image indexes nest deeper than %d".formatted(image, MAX_INDEX_DEPTH));
    }
    RegistryTransport.Response response = transport.get(image, "manifests/" + reference, ManifestDocument.ACCEPT);
    String actual = sha256(response.body());
    String expected = expectedDigest != null ? expectedDigest : response.contentDigest().orElse(actual);
    if (!actual.equals(expected)) {
      throw new CrigateException.FailedPrecondition(
          "manifest %s of %s has digest %s: refusing it".formatted(expected, image.name(), actual));
    }
    if (expectedDigest == null) {
      byTag.put(image.toString(), new TagAnswer(actual, clock.instant().plus(config.tagTtl())));
    }
    ImageLayers layers = switch (ManifestDocument.parse(json, response.body(), response.contentType(), image.toString())) {
      case ManifestDocument.ImageManifest manifest -> new ImageLayers(image.toString(), actual, manifest.layers());
      case ManifestDocument.Index index -> {
        String child = Layer.requireDigest(index.select(config.platform(), image.toString()).digest());
        ImageLayers known = byDigest.get(child);
        yield known != null ? known : fetch(image, child, child, depth + 1);
      }
    };
    byDigest.put(actual, layers);
    return layers;
  }

  private String cachedTag(ImageRef image) {
    TagAnswer answer = byTag.get(image.toString());
    return answer != null && clock.instant().isBefore(answer.expires()) ? answer.digest() : null;
  }

  static String sha256(byte[] bytes) {
    try {
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
