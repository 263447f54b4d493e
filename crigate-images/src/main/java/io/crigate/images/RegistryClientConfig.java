package io.crigate.images;

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
