package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The token refusals crigate recognises before slurmrestd turns them into an outage-like HTTP 500. */
class SlurmTokenTest {

  private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

  private static String jwt(String claims) {
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    return url.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
        + url.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".c2lnbmF0dXJl";
  }

  @Test
  void aTokenValidNowOrWithoutExpiryIsUsed() {
    String later = jwt("{\"exp\":%d,\"iat\":1,\"sun\":\"root\"}".formatted(NOW.getEpochSecond() + 60));
    String forever = jwt("{\"sun\":\"root\"}");
    assertThat(SlurmToken.usable(later, "root", NOW)).isEqualTo(later);
    assertThat(SlurmToken.usable(forever, "root", NOW)).isEqualTo(forever);
  }

  @Test
  void anExpiredTokenIsPermissionDeniedNamingWhenAndNeverShowingIt() {
    String expired = jwt("{\"exp\":%d,\"sun\":\"root\"}".formatted(NOW.getEpochSecond()));
    assertThatThrownBy(() -> SlurmToken.usable(expired, "root", NOW))
        .isInstanceOf(CrigateException.PermissionDenied.class)
        .hasMessageContaining("user root").hasMessageContaining("expired at " + NOW)
        .hasMessageNotContaining(expired);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "not-a-jwt", "a.b", "eyJhbGciOiJIUzI1NiJ9.!!!.sig", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.sig"})
  void anEmptyOrMalformedTokenIsPermissionDenied(String token) {
    assertThatThrownBy(() -> SlurmToken.usable(token, "root", NOW))
        .isInstanceOf(CrigateException.PermissionDenied.class).hasMessageContaining("renew it");
  }

  /** Refused before any request: the URL is a port in this helper's range where nothing listens. */
  @Test
  void theRestClientRefusesAnExpiredTokenBeforeCallingAndAnUnreachableServerIsUnavailable() {
    String expired = jwt("{\"exp\":1}");
    String valid = jwt("{\"exp\":%d}".formatted(Instant.now().getEpochSecond() + 3600));
    try (RestSlurmClient refused = new RestSlurmClient(
        new SlurmSettings.Rest("http://127.0.0.1:19311", null, "root", expired, null, true));
        RestSlurmClient unreachable = new RestSlurmClient(
            new SlurmSettings.Rest("http://127.0.0.1:19311", null, "root", valid, null, true))) {
      assertThatThrownBy(() -> refused.queue(java.util.Set.of(1L))).isInstanceOf(CrigateException.PermissionDenied.class);
      assertThatThrownBy(() -> unreachable.cancel(List.of(1L), "")).isInstanceOf(CrigateException.Unavailable.class);
    }
  }
}
