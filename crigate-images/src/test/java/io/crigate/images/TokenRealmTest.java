package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenRealmTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "docker.io/library/busybox:1, https://auth.docker.io/token",
      "registry.gitlab.com/team/app:1, https://gitlab.com/jwt/auth",
      "ghcr.io/team/app:1, https://ghcr.io/token",
      "quay.io/team/app:1, https://quay.io/v2/auth",
      "registry.example.org:5000/app:1, https://registry.example.org/token"})
  void aRealmOnTheRegistrysOwnSiteIsFollowed(String image, String realm) {
    assertThat(TokenRealm.check(ImageRef.parse(image), realm, false)).hasToString(realm);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "docker.io/library/busybox:1, https://auth.evil.example/token, own site",
      "ghcr.io/team/app:1, https://ghcr.io.evil.example/token, own site",
      "10.0.0.5:5000/app:1, https://10.0.0.6/token, own site",
      "ghcr.io/team/app:1, http://ghcr.io/token, https",
      "ghcr.io/team/app:1, file:///etc/shadow, https",
      "ghcr.io/team/app:1, not a url, not a URL"})
  void anyOtherRealmIsRefusedBeforeAByteIsSent(String image, String realm, String why) {
    assertThatThrownBy(() -> TokenRealm.check(ImageRef.parse(image), realm, false))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining(realm).hasMessageContaining(why);
  }
}
