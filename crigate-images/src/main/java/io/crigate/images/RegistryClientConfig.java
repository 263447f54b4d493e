package io.crigate.images;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * How the registry client behaves.
 *
 * @param platform the platform image indexes resolve to
 * @param insecureRegistries registries (host or host:port) spoken to over plain HTTP; loopback
 *     hosts always are
 * @param credentials per registry (host or host:port); registries not listed are anonymous
 * @param tagTtl how long a tag-to-digest answer is trusted before the registry is asked again
 * @param cachedImages how many digests' layer lists are kept
 * @param timeout per HTTP request
 */
public record RegistryClientConfig(
    Platform platform,
    Set<String> insecureRegistries,
    Map<String, RegistryCredentials> credentials,
    Duration tagTtl,
    int cachedImages,
    Duration timeout) {

  public RegistryClientConfig {
    insecureRegistries = Set.copyOf(insecureRegistries);
    credentials = Map.copyOf(credentials);
  }

  public static RegistryClientConfig defaults() {
    return new RegistryClientConfig(
        Platform.LINUX_AMD64, Set.of(), Map.of(), Duration.ofMinutes(1), 4096, Duration.ofSeconds(10));
  }

  /**
   * Reads the {@code images.registry} section of crigate's configuration; absent keys keep their
   * defaults. Shape: {@code {platform: linux/arm64, insecure: [host:port], tagTtlSeconds: 60,
   * cachedImages: 4096, timeoutSeconds: 10, credentials: {host: {username: u, passwordFile: /path}}}}
   * ({@code password} inline is accepted too). Errors name the key, never a secret.
   */
  public static RegistryClientConfig fromSettings(JsonNode settings) {
    RegistryClientConfig config = defaults();
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
        Duration.ofSeconds(positive(settings, "tagTtlSeconds", config.tagTtl().toSeconds())),
        (int) positive(settings, "cachedImages", config.cachedImages()),
        Duration.ofSeconds(positive(settings, "timeoutSeconds", config.timeout().toSeconds())));
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
    return new RegistryClientConfig(newPlatform, insecureRegistries, credentials, tagTtl, cachedImages, timeout);
  }

  public RegistryClientConfig withCredentials(String registry, RegistryCredentials login) {
    var all = new java.util.HashMap<>(credentials);
    all.put(registry, login);
    return new RegistryClientConfig(platform, insecureRegistries, all, tagTtl, cachedImages, timeout);
  }

  public RegistryClientConfig withInsecure(String registry) {
    var all = new java.util.HashSet<>(insecureRegistries);
    all.add(registry);
    return new RegistryClientConfig(platform, all, credentials, tagTtl, cachedImages, timeout);
  }

  @Override
  public String toString() {
    return "RegistryClientConfig[platform=%s, insecure=%s, credentialsFor=%s, tagTtl=%s]"
        .formatted(platform, insecureRegistries, credentials.keySet(), tagTtl);
  }
}
