package io.crigate.images;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import io.crigate.spi.config.SecondsOrDuration;
import io.crigate.spi.config.SettingsBinder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
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

  /** The {@code images.registry} section as written; an absent key is null. */
  record Written(
      String platform,
      List<String> insecure,
      Map<String, Login> credentials,
      List<String> allowedRegistries,
      List<String> tokenRealms,
      @JsonAlias("tagTtlSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration tagTtl,
      Integer cachedImages,
      Integer cachedTokens,
      @JsonAlias("connectTimeoutSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration connectTimeout,
      @JsonAlias("timeoutSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration timeout) {}

  /** One registry's login; {@code password} inline or read from {@code passwordFile}. */
  record Login(String username, String password, String passwordFile) {
    @Override
    public String toString() {
      return "Login[" + username + "]";
    }
  }

  /**
   * Reads the {@code images.registry} section of crigate's configuration over {@code base}; absent
   * keys keep the base's values. Shape: {@code {platform: linux/arm64, insecure: [host:port],
   * allowedRegistries: [docker.io, ghcr.io], tokenRealms: [gitlab.com], tagTtl: 1m, cachedImages:
   * 4096, cachedTokens: 1024, connectTimeout: 5s, timeout: 10s, credentials: {host: {username: u,
   * passwordFile: /path}}}} ({@code password} inline is accepted too; so are the older
   * {@code tagTtlSeconds}, {@code connectTimeoutSeconds} and {@code timeoutSeconds}, in whole
   * seconds). Insecure hosts and credentials add to the base's; a list of allowed registries or
   * realms replaces it. Errors name the key, never a secret.
   */
  public static RegistryClientConfig fromSettings(JsonNode settings, RegistryClientConfig base) {
    if (settings == null || settings.isMissingNode() || settings.isNull()) {
      return base;
    }
    Written written = SettingsBinder.bind(settings, Written.class, "images.registry");
    Set<String> insecure = new HashSet<>(base.insecureRegistries());
    insecure.addAll(Objects.requireNonNullElse(written.insecure(), List.of()));
    Map<String, RegistryCredentials> credentials = new HashMap<>(base.credentials());
    Objects.requireNonNullElse(written.credentials(), Map.<String, Login>of())
        .forEach((registry, login) -> credentials.put(registry, login(registry, login)));
    return new RegistryClientConfig(
        written.platform() == null ? base.platform() : Platform.parse(written.platform()),
        insecure,
        credentials,
        hosts("allowedRegistries", written.allowedRegistries(), base.allowedRegistries()),
        hosts("tokenRealms", written.tokenRealms(), base.tokenRealms()),
        Objects.requireNonNullElse(written.tagTtl(), base.tagTtl()),
        positive("cachedImages", written.cachedImages(), base.cachedImages()),
        positive("cachedTokens", written.cachedTokens(), base.cachedTokens()),
        Objects.requireNonNullElse(written.connectTimeout(), base.connectTimeout()),
        Objects.requireNonNullElse(written.timeout(), base.timeout()));
  }

  private static Set<String> hosts(String key, List<String> written, Set<String> fallback) {
    if (written == null) {
      return fallback;
    }
    for (String host : written) {
      if (host == null || host.isBlank()) {
        throw new CrigateException.InvalidArgument("images.registry.%s: entry '%s' is not a host".formatted(key, host));
      }
    }
    return Set.copyOf(written);
  }

  private static int positive(String key, Integer written, int fallback) {
    if (written == null) {
      return fallback;
    }
    if (written <= 0) {
      throw new CrigateException.InvalidArgument("images.registry.%s must be a positive number, got %d".formatted(key, written));
    }
    return written;
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
    return new RegistryClientConfig(newPlatform, insecureRegistries, credentials, allowedRegistries, tokenRealms,
        tagTtl, cachedImages, cachedTokens, connectTimeout, timeout);
  }

  public RegistryClientConfig withCredentials(String registry, RegistryCredentials login) {
    var all = new HashMap<>(credentials);
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
