package io.crigate.images;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.SecondsOrDuration;
import io.crigate.spi.config.SettingsBinder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

  /** The {@code images.registry} section as written; an absent key is null. */
  record Written(
      String platform,
      List<String> insecure,
      Map<String, Login> credentials,
      @JsonAlias("tagTtlSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration tagTtl,
      Integer cachedImages,
      @JsonAlias("timeoutSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration timeout) {}

  /** One registry's login; {@code password} inline or read from {@code passwordFile}. */
  record Login(String username, String password, String passwordFile) {
    @Override
    public String toString() {
      return "Login[" + username + "]";
    }
  }

  /**
   * Reads the {@code images.registry} section of crigate's configuration; absent keys keep their
   * defaults. Shape: {@code {platform: linux/arm64, insecure: [host:port], tagTtl: 1m, cachedImages:
   * 4096, timeout: 10s, credentials: {host: {username: u, passwordFile: /path}}}} ({@code password}
   * inline is accepted too; so are the older {@code tagTtlSeconds} and {@code timeoutSeconds}, in
   * whole seconds). Errors name the key, never a secret.
   */
  public static RegistryClientConfig fromSettings(JsonNode settings) {
    RegistryClientConfig defaults = defaults();
    Written written = SettingsBinder.bind(settings, Written.class, "images.registry");
    Map<String, RegistryCredentials> credentials = new HashMap<>();
    Objects.requireNonNullElse(written.credentials(), Map.<String, Login>of())
        .forEach((registry, login) -> credentials.put(registry, login(registry, login)));
    int cachedImages = Objects.requireNonNullElse(written.cachedImages(), defaults.cachedImages());
    if (cachedImages <= 0) {
      throw new CrigateException.InvalidArgument("images.registry.cachedImages must be a positive number, got " + cachedImages);
    }
    return new RegistryClientConfig(
        written.platform() == null ? defaults.platform() : Platform.parse(written.platform()),
        Set.copyOf(Objects.requireNonNullElse(written.insecure(), List.of())),
        credentials,
        Objects.requireNonNullElse(written.tagTtl(), defaults.tagTtl()),
        cachedImages,
        Objects.requireNonNullElse(written.timeout(), defaults.timeout()));
  }

  private static RegistryCredentials login(String registry, Login login) {
    if (login == null || login.username() == null || login.username().isEmpty()) {
      throw new CrigateException.InvalidArgument("images.registry.credentials.%s: username missing".formatted(registry));
    }
    if (login.passwordFile() != null) {
      Path file = Path.of(login.passwordFile());
      try {
        return new RegistryCredentials(login.username(), Files.readString(file).strip());
      } catch (IOException e) {
        throw new CrigateException.InvalidArgument("images.registry.credentials.%s.passwordFile %s is unreadable: %s"
            .formatted(registry, file, e.getClass().getSimpleName()));
      }
    }
    if (login.password() == null) {
      throw new CrigateException.InvalidArgument("images.registry.credentials.%s: password or passwordFile missing".formatted(registry));
    }
    return new RegistryCredentials(login.username(), login.password());
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
