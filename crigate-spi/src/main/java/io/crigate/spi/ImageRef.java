package io.crigate.spi;

import java.util.regex.Pattern;

/**
 * A parsed image reference, normalized the way container runtimes do: {@code busybox} is {@code
 * docker.io/library/busybox:latest}, a first component with a dot, a colon or {@code localhost}
 * names a registry. It lives in the SPI because crigate checks every reference a kubelet sends before
 * a backend sees it, and the image layer code resolves the same references against registries.
 *
 * @param registry host and optional port, e.g. {@code docker.io} or {@code 127.0.0.1:5000}
 * @param repository path inside the registry, e.g. {@code library/busybox}
 * @param tag the tag, or {@code null} when only a digest was given
 * @param digest {@code sha256:<hex>} or {@code null}
 */
public record ImageRef(String registry, String repository, String tag, String digest) {

  public static final String DOCKER_HUB = "docker.io";
  private static final String DEFAULT_TAG = "latest";
  private static final Pattern COMPONENT = Pattern.compile("[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*");
  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final Pattern SHA256 = Pattern.compile("sha256:[0-9a-f]{64}");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]+(?::[0-9]{1,5})?|\\[[0-9A-Fa-f:]+](?::[0-9]{1,5})?");

  public static ImageRef parse(String reference) {
    if (reference == null || reference.isBlank()) {
      throw new CrigateException.InvalidArgument("empty image reference");
    }
    String rest = reference;
    String digest = null;
    int at = rest.indexOf('@');
    if (at >= 0) {
      digest = requireDigest(reference, rest.substring(at + 1));
      rest = rest.substring(0, at);
    }
    String tag = null;
    int colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      tag = rest.substring(colon + 1);
      rest = rest.substring(0, colon);
      if (!TAG.matcher(tag).matches()) {
        throw new CrigateException.InvalidArgument("image reference %s: bad tag %s".formatted(reference, tag));
      }
    }
    String registry = DOCKER_HUB;
    int slash = rest.indexOf('/');
    if (slash > 0 && namesRegistry(rest.substring(0, slash))) {
      registry = rest.substring(0, slash);
      rest = rest.substring(slash + 1);
      if (!HOST.matcher(registry).matches()) {
        throw new CrigateException.InvalidArgument("image reference %s: bad registry %s".formatted(reference, registry));
      }
    }
    if (registry.equals("index.docker.io") || registry.equals("registry-1.docker.io")) {
      registry = DOCKER_HUB;
    }
    if (registry.equals(DOCKER_HUB) && rest.indexOf('/') < 0) {
      rest = "library/" + rest;
    }
    for (String component : rest.split("/", -1)) {
      if (!COMPONENT.matcher(component).matches()) {
        throw new CrigateException.InvalidArgument("image reference %s: bad repository %s".formatted(reference, rest));
      }
    }
    return new ImageRef(registry, rest, tag == null && digest == null ? DEFAULT_TAG : tag, digest);
  }

  /** The host the distribution API is served from; Docker Hub's API lives on another name than its images. */
  public String apiHost() {
    return registry.equals(DOCKER_HUB) ? "registry-1.docker.io" : registry;
  }

  /** What goes after {@code /manifests/}: the digest when pinned, else the tag. */
  public String manifestReference() {
    return digest != null ? digest : tag;
  }

  public ImageRef withDigest(String manifestDigest) {
    return new ImageRef(registry, repository, null, manifestDigest);
  }

  /** The fully qualified name without tag or digest, e.g. {@code docker.io/library/busybox}. */
  public String name() {
    return registry + "/" + repository;
  }

  @Override
  public String toString() {
    return name() + (tag != null ? ":" + tag : "") + (digest != null ? "@" + digest : "");
  }

  private static boolean namesRegistry(String first) {
    return first.contains(".") || first.contains(":") || first.equals("localhost") || first.startsWith("[");
  }

  /** Checks the digest form shared by references, layers, manifests and published inventories. */
  public static String requireDigest(String digest) {
    if (digest == null || !SHA256.matcher(digest).matches()) {
      throw new CrigateException.InvalidArgument("not a sha256 digest: " + digest);
    }
    return digest;
  }

  private static String requireDigest(String reference, String digest) {
    try {
      return requireDigest(digest);
    } catch (CrigateException.InvalidArgument e) {
      throw new CrigateException.InvalidArgument("image reference %s: %s".formatted(reference, e.getMessage()));
    }
  }
}
