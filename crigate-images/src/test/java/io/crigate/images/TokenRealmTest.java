package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 16 item 11: a token realm only on the registry's own host or on the realm allow-list. */
class TokenRealmTest {

  private static final Set<String> DEFAULT_REALMS = RegistryClientConfig.defaults().tokenRealms();

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "docker.io/library/busybox:1, https://auth.docker.io/token",
      "ghcr.io/team/app:1, https://ghcr.io/token",
      "quay.io/team/app:1, https://quay.io/v2/auth",
      "registry.example.org:5000/app:1, https://registry.example.org/token"})
  void aRealmOnTheRegistrysOwnHostOrDockerHubsIsFollowed(String image, String realm) {
    assertThat(TokenRealm.check(ImageRef.parse(image), realm, false, DEFAULT_REALMS)).hasToString(realm);
  }

  @ParameterizedTest(name = "{0} -> {1} with {2} allowed")
  @CsvSource({
      "registry.gitlab.com/team/app:1, https://gitlab.com/jwt/auth, gitlab.com",
      "reg.example.org/app:1, https://sso.example.net:8443/token, sso.example.net:8443",
      "reg.example.org/app:1, https://SSO.example.net/token, sso.example.net"})
  void aRealmOnTheAllowListIsFollowed(String image, String realm, String allowed) {
    assertThat(TokenRealm.check(ImageRef.parse(image), realm, false, Set.of(allowed))).hasToString(realm);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      // the same last two labels used to be enough; now only the host or the allow-list is
      "registry.gitlab.com/team/app:1, https://gitlab.com/jwt/auth, nor on the token realm allow-list",
      "reg.example.co.uk/app:1, https://attacker.co.uk/token, nor on the token realm allow-list",
      "docker.io/library/busybox:1, https://auth.evil.example/token, own host",
      "ghcr.io/team/app:1, https://ghcr.io.evil.example/token, own host",
      "10.0.0.5:5000/app:1, https://10.0.0.6/token, own host",
      "reg.example.org/app:1, https://sso.example.net:9999/token, own host",
      "ghcr.io/team/app:1, http://ghcr.io/token, https",
      "ghcr.io/team/app:1, file:///etc/shadow, https",
      "ghcr.io/team/app:1, not a url, not a URL"})
  void anyOtherRealmIsRefusedBeforeAByteIsSent(String image, String realm, String why) {
    Set<String> realms = Set.of("auth.docker.io", "sso.example.net:8443");
    assertThatThrownBy(() -> TokenRealm.check(ImageRef.parse(image), realm, false, realms))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining(realm).hasMessageContaining(why);
  }
}
