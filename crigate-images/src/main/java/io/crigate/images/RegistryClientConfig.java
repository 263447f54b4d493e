package io.crigate.images;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * How the registry client behaves.
 *
 * @param platform the platform image indexes resolve to
 * @param insecureRegistries registries (host or host:port) spoken to over plain HTTP; loopback
 *     hosts always are
 * @param credentials per registry (host or host:port); registries not listed are anonymous
 * @param allowedRegistries the registries (as written in image references: {@code docker.io},
 *     {@code ghcr.io}, {@code reg.lan:5000}) the client may contact; {@value #ANY_REGISTRY} allows
 *     every one. An image elsewhere is refused before a byte is sent, since whoever writes the
 *     reference (a pod author) would otherwise choose the hosts crigate connects to.
 * @param tokenRealms hosts (or host:port) besides each registry's own host that its Bearer
 *     challenge may send crigate to for a token ({@link TokenRealm})
 * @param tagTtl how long a tag-to-digest answer is trusted before the registry is asked again
 * @param cachedImages how many digests' layer lists are kept
 * @param cachedTokens how many Bearer tokens (one per registry and repository) are kept
 * @param connectTimeout to open a connection to a registry or token service
 * @param timeout for one whole HTTP exchange, body included
 */
public record RegistryClientConfig(
    Platform platform,
    Set<String> insecureRegistries,
    Map<String, RegistryCredentials> credentials,
    Set<String> allowedRegistries,
    Set<String> tokenRealms,
    Duration tagTtl,
    int cachedImages,
    int cachedTokens,
    Duration connectTimeout,
    Duration timeout) {

  /** The allow-list entry that admits every registry. */
  public static final String ANY_REGISTRY = "*";
  /** Docker Hub's token service, which is not on its registry's host. */
  static final String DOCKER_HUB_REALM = "auth.docker.io";

  public RegistryClientConfig {
    insecureRegistries = Set.copyOf(insecureRegistries);
    credentials = Map.copyOf(credentials);
    allowedRegistries = Set.copyOf(allowedRegistries);
    tokenRealms = Set.copyOf(tokenRealms);
  }

  /** Every registry allowed, Docker Hub's realm allowed; see {@link #fromSettings(JsonNode, RegistryClientConfig)}. */
  public static RegistryClientConfig defaults() {
    return new RegistryClientConfig(Platform.LINUX_AMD64, Set.of(), Map.of(), Set.of(ANY_REGISTRY),
        Set.of(DOCKER_HUB_REALM), Duration.ofMinutes(1), 4096, 1024, Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  /** Whether {@code image}'s registry is on the allow-list. */
  public boolean allows(ImageRef image) {
    return allowedRegistries.contains(ANY_REGISTRY) || allowedRegistries.contains(image.registry());
  }

  public static RegistryClientConfig fromSettings(JsonNode settings) {
    return fromSettings(settings, defaults());
  }

  /**
   * Reads the {@code images.registry} section of crigate's configuration over {@code base}; absent
   * keys keep the base's values. Shape: {@code {platform: linux/arm64, insecure: [host:port],
   * allowedRegistries: [docker.io, ghcr.io], tokenRealms: [gitlab.com], tagTtlSeconds: 60,
   * cachedImages: 4096, cachedTokens: 1024, connectTimeoutSeconds: 5, timeoutSeconds: 10,
   * credentials: {host: {username: u, passwordFile: /path}}}} ({@code password} inline is accepted
   * too). A list given replaces the base's. Errors name the key, never a secret.
   */
  public static RegistryClientConfig fromSettings(JsonNode settings, RegistryClientConfig base) {
    RegistryClientConfig config = base;
    if (settings == null || settings.isMissingNode() || settings.isNull()) {
      return config;
    }
    if (settings.hasNonNull("platform")) {
      config = config.withPlatform(Platform.parse(settings.get("platform").asText()));
    }
    for (JsonNode host : settings.path("insecure")) {
      config = config.withInsecure(host.asText());
    }
    var fields = settings.path("credentials").properties();
    for (var entry : fields) {
      config = config.withCredentials(entry.getKey(), login(entry.getKey(), entry.getValue()));
    }
    return new RegistryClientConfig(config.platform(), config.insecureRegistries(), config.credentials(),
        hosts(settings, "allowedRegistries", config.allowedRegistries()),
        hosts(settings, "tokenRealms", config.tokenRealms()),
        Duration.ofSeconds(positive(settings, "tagTtlSeconds", config.tagTtl().toSeconds())),
        (int) positive(settings, "cachedImages", config.cachedImages()),
        (int) positive(settings, "cachedTokens", config.cachedTokens()),
        Duration.ofSeconds(positive(settings, "connectTimeoutSeconds", config.connectTimeout().toSeconds())),
        Duration.ofSeconds(positive(settings, "timeoutSeconds", config.timeout().toSeconds())));
  }

  private static Set<String> hosts(JsonNode settings, String key, Set<String> fallback) {
    if (!settings.has(key)) {
      return fallback;
    }
    if (!settings.get(key).isArray()) {
      throw new CrigateException.InvalidArgument("images.registry.%s must be a list of hosts".formatted(key));
    }
    Set<String> hosts = new HashSet<>();
    for (JsonNode host : settings.get(key)) {
      if (!host.isTextual() || host.asText().isBlank()) {
        throw new CrigateException.InvalidArgument("images.registry.%s: entry %s is not a host".formatted(key, host));
      }
      hosts.add(host.asText());
    }
    return hosts;
  }

  private static RegistryCredentials login(String registry, JsonNode login) {
    String username = login.path("username").asText("");
    if (username.isEmpty()) {
      throw new CrigateException.InvalidArgument("images.registry.credentials.%s: username missing".formatted(registry));
    }
    if (login.hasNonNull("passwordFile")) {
      Path file = Path.of(login.get("passwordFile").asText());
      try {
        return new RegistryCredentials(username, Files.readString(file).strip());
      } catch (IOException e) {
        throw new CrigateException.InvalidArgument("images.registry.credentials.%s.passwordFile %s is unreadable: %s"
            .formatted(registry, file, e.getClass().getSimpleName()));
      }
    }
    if (!login.hasNonNull("password")) {
      throw new CrigateException.InvalidArgument("images.registry.credentials.%s: password or passwordFile missing".formatted(registry));
    }
    return new RegistryCredentials(username, login.get("password").asText());
  }

  private static long positive(JsonNode settings, String key, long fallback) {
    if (!settings.has(key)) {
      return fallback;
    }
    long value = settings.get(key).asLong(-1);
    if (value <= 0) {
      throw new CrigateException.InvalidArgument("images.registry.%s must be a positive number, got %s".formatted(key, settings.get(key)));
    }
    return value;
  }

  public RegistryClientConfig withPlatform(Platform newPlatform) {
    return new RegistryClientConfig(newPlatform, insecureRegistries, credentials, allowedRegistries, tokenRealms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  public RegistryClientConfig withCredentials(String registry, RegistryCredentials login) {
    var all = new java.util.HashMap<>(credentials);
    all.put(registry, login);
    return new RegistryClientConfig(platform, insecureRegistries, all, allowedRegistries, tokenRealms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  public RegistryClientConfig withInsecure(String registry) {
    var all = new HashSet<>(insecureRegistries);
    all.add(registry);
    return new RegistryClientConfig(platform, all, credentials, allowedRegistries, tokenRealms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  public RegistryClientConfig withAllowedRegistries(Set<String> registries) {
    return new RegistryClientConfig(platform, insecureRegistries, credentials, registries, tokenRealms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  public RegistryClientConfig withTokenRealms(Set<String> realms) {
    return new RegistryClientConfig(platform, insecureRegistries, credentials, allowedRegistries, realms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  /** Cache sizes and timeouts, which tests make small. */
  public RegistryClientConfig withLimits(int newCachedTokens, Duration newConnectTimeout, Duration newTimeout) {
    return new RegistryClientConfig(platform, insecureRegistries, credentials, allowedRegistries, tokenRealms,
        tagTtl, cachedImages, newCachedTokens, newConnectTimeout, newTimeout);
  }

  @Override
  public String toString() {
    return "RegistryClientConfig[platform=%s, insecure=%s, credentialsFor=%s, allowed=%s, tokenRealms=%s, tagTtl=%s]"
        .formatted(platform, insecureRegistries, credentials.keySet(), allowedRegistries, tokenRealms, tagTtl);
  }
}
