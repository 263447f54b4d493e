package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RegistryClientConfigTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void readsEveryKeyAndAPasswordFile(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("pw");
    Files.writeString(secret, "from-file\n");
    var settings = json.readTree("""
        {"platform":"linux/arm64/v8","insecure":["reg.lan:5000"],"tagTtlSeconds":30,"cachedImages":10,"timeoutSeconds":3,
         "allowedRegistries":["ghcr.io","reg.lan:5000"],"tokenRealms":["gitlab.com"],"cachedTokens":7,"connectTimeoutSeconds":2,
         "credentials":{"ghcr.io":{"username":"u1","password":"inline"},"quay.io":{"username":"u2","passwordFile":"%s"}}}"""
        .formatted(secret));

    RegistryClientConfig config = RegistryClientConfig.fromSettings(settings);

    assertThat(config.platform()).isEqualTo(new Platform("linux", "arm64", "v8"));
    assertThat(config.insecureRegistries()).isEqualTo(Set.of("reg.lan:5000"));
    assertThat(config.tagTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.cachedImages()).isEqualTo(10);
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.allowedRegistries()).isEqualTo(Set.of("ghcr.io", "reg.lan:5000"));
    assertThat(config.tokenRealms()).isEqualTo(Set.of("gitlab.com"));
    assertThat(config.cachedTokens()).isEqualTo(7);
    assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.credentials().get("ghcr.io")).isEqualTo(new RegistryCredentials("u1", "inline"));
    assertThat(config.credentials().get("quay.io")).isEqualTo(new RegistryCredentials("u2", "from-file"));
    assertThat(config.toString()).doesNotContain("inline").doesNotContain("from-file");
  }

  @Test
  void durationsAreGoDurationsAndTheOldSecondsKeysStillWork() throws Exception {
    RegistryClientConfig config = RegistryClientConfig.fromSettings(json.readTree("{\"tagTtl\":\"2m30s\",\"timeout\":\"500ms\"}"));
    assertThat(config.tagTtl()).isEqualTo(Duration.ofSeconds(150));
    assertThat(config.timeout()).isEqualTo(Duration.ofMillis(500));

    RegistryClientConfig old = RegistryClientConfig.fromSettings(json.readTree("{\"tagTtlSeconds\":30,\"timeoutSeconds\":3}"));
    assertThat(old.tagTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(old.timeout()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void anAbsentSectionMeansDefaults() {
    assertThat(RegistryClientConfig.fromSettings(json.missingNode())).isEqualTo(RegistryClientConfig.defaults());
  }

  /** The gateway's node images were pulled already and allow any registry; the extender's base allows none. */
  @Test
  void absentListsKeepTheBasesAndGivenOnesReplaceThem() throws Exception {
    var none = RegistryClientConfig.defaults().withAllowedRegistries(Set.of());
    assertThat(RegistryClientConfig.defaults().allowedRegistries()).containsExactly(RegistryClientConfig.ANY_REGISTRY);
    assertThat(RegistryClientConfig.defaults().tokenRealms()).containsExactly("auth.docker.io");
    assertThat(RegistryClientConfig.fromSettings(json.readTree("{\"platform\":\"linux/arm64\"}"), none).allowedRegistries()).isEmpty();
    var replaced = RegistryClientConfig.fromSettings(json.readTree("{\"allowedRegistries\":[\"quay.io\"],\"tokenRealms\":[]}"));
    assertThat(replaced.allowedRegistries()).containsExactly("quay.io");
    assertThat(replaced.tokenRealms()).isEmpty();
  }

  record Case(String name, String settings, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> invalid() {
    return Stream.of(
        new Case("platform without arch", "{\"platform\":\"linux\"}", "os/arch"),
        new Case("zero ttl", "{\"tagTtlSeconds\":0}", "'images.registry.tagTtl' must be a positive duration"),
        new Case("ttl without a unit", "{\"tagTtl\":\"30\"}", "'images.registry.tagTtl' must be a positive duration"),
        new Case("zero cache", "{\"cachedImages\":0}", "images.registry.cachedImages must be a positive number"),
        new Case("zero token cache", "{\"cachedTokens\":0}", "images.registry.cachedTokens must be a positive number"),
        new Case("negative connect timeout", "{\"connectTimeoutSeconds\":-1}", "'images.registry.connectTimeout' must be a positive duration"),
        new Case("allow-list not a list", "{\"allowedRegistries\":\"docker.io\"}", "'images.registry.allowedRegistries' must be"),
        new Case("realm not a host", "{\"tokenRealms\":[\" \"]}", "tokenRealms: entry ' ' is not a host"),
        new Case("misspelt key", "{\"tagTTL\":\"1m\"}",
            "unknown images.registry key 'tagTTL' (known: platform, insecure, credentials, allowedRegistries, tokenRealms, tagTtl, cachedImages, cachedTokens, connectTimeout, timeout)"),
        new Case("misspelt login key", "{\"credentials\":{\"r.io\":{\"username\":\"u\",\"pasword\":\"hunter2\"}}}",
            "unknown images.registry.credentials.r.io key 'pasword' (known: username, password, passwordFile)"),
        new Case("login without user", "{\"credentials\":{\"r.io\":{\"password\":\"hunter2\"}}}", "r.io: username missing"),
        new Case("login without password", "{\"credentials\":{\"r.io\":{\"username\":\"u\"}}}", "password or passwordFile"),
        new Case("unreadable password file", "{\"credentials\":{\"r.io\":{\"username\":\"u\",\"passwordFile\":\"/nonexistent/pw\"}}}", "unreadable"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void badSettingsNameTheKeyButNoSecret(Case c) throws Exception {
    assertThatThrownBy(() -> RegistryClientConfig.fromSettings(json.readTree(c.settings())))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(c.message())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
  }
}
