package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SlurmSettingsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode rest(String url) {
    ObjectNode settings = JSON.createObjectNode().put("workDir", "/shared").put("transport", "rest");
    settings.putObject("rest").put("url", url).put("user", "crigate").put("token", "jwt-secret");
    return settings;
  }

  /** Issue 16 item 12: the JWT is a header, so plain http carries it in clear. */
  @ParameterizedTest
  @ValueSource(strings = {"http://10.0.0.7:6820", "http://slurmrestd:6820", "http://127.0.0.1.example.org:6820"})
  void plainHttpToAnotherHostIsRefusedUnlessAllowed(String url) {
    assertThatThrownBy(() -> SlurmSettings.parse("hpc", rest(url)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(url).hasMessageContaining("rest.allowInsecureHttp").hasMessageNotContaining("jwt-secret");

    ObjectNode allowed = rest(url);
    ((ObjectNode) allowed.get("rest")).put("allowInsecureHttp", true);
    assertThat(SlurmSettings.parse("hpc", allowed).rest().url()).isEqualTo(url);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:6820", "http://localhost:6820", "http://[::1]:6820",
      "https://slurmrestd.example.org:6820"})
  void loopbackAndHttpsNeedNoOptIn(String url) {
    assertThat(SlurmSettings.parse("hpc", rest(url)).rest().url()).isEqualTo(url);
  }

  @ParameterizedTest
  @CsvSource({"ftp://h:1, must be http(s)", "http//nohost, must be http(s)", "http://h:1/a b, is not a URL"})
  void aUrlThatIsNotHttpIsRefusedWithTheReason(String url, String reason) {
    assertThatThrownBy(() -> SlurmSettings.parse("hpc", rest(url)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("rest.url").hasMessageContaining(reason);
  }

  private static ObjectNode local() {
    return JSON.createObjectNode().put("workDir", "/shared");
  }

  @Test
  void theBackendsJobsRunAsTheSshOrSlurmrestdUserAndLocallyAsCrigate(@TempDir Path tmp) throws Exception {
    ObjectNode ssh = JSON.createObjectNode().put("workDir", "/shared").put("transport", "ssh");
    ssh.putObject("ssh").put("host", "login").put("user", "svc-k8s").put("password", "pw")
        .put("knownHostsFile", Files.writeString(tmp.resolve("known_hosts"), "").toString());

    assertThat(SlurmSettings.parse("hpc", ssh).jobUser()).contains("svc-k8s");
    assertThat(SlurmSettings.parse("hpc", rest("https://slurmrestd:6820")).jobUser()).contains("crigate");
    assertThat(SlurmSettings.parse("hpc", local()).jobUser()).isEmpty();
  }

  @Test
  void thePollIntervalIsAGoDurationAndTheOldMillisKeyStillReadsMilliseconds() {
    assertThat(SlurmSettings.parse("hpc", local()).pollInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(SlurmSettings.parse("hpc", local().put("pollInterval", "250ms")).pollInterval())
        .isEqualTo(Duration.ofMillis(250));
    assertThat(SlurmSettings.parse("hpc", local().put("pollIntervalMillis", 300)).pollInterval())
        .isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void aPortForwardStandbyWaitsThirtySecondsUnlessSetAndZeroTurnsItOff() {
    assertThat(SlurmSettings.parse("hpc", local()).portForwardStandby()).isEqualTo(Duration.ofSeconds(30));
    assertThat(SlurmSettings.parse("hpc", local().put("portForwardStandby", "2m")).portForwardStandby())
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(SlurmSettings.parse("hpc", local().put("portForwardStandby", "0s")).portForwardStandby()).isZero();
    assertThat(SlurmSettings.parse("hpc", local().put("portForwardStandby", 0)).portForwardStandby()).isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "portForwardStandby|-1s|'backends.hpc.portForwardStandby': must be 0 (off) or a positive duration such as 500ms, 30s or 1m30s, not '-1s'",
      "portForwardStandby|30|'backends.hpc.portForwardStandby': must be 0 (off) or a positive duration such as 500ms, 30s or 1m30s, not '30'",
      "pollInterval|soon|'backends.hpc.pollInterval' must be a positive duration",
      "pollIntervalMillis|0|'backends.hpc.pollInterval' must be a positive duration",
      "pollIntervall|1s|unknown backends.hpc key 'pollIntervall' (known: workDir, transport, ssh, rest, runner, pollInterval"})
  void aBadSettingIsNamedByItsPath(String key, String value, String message) {
    ObjectNode settings = local();
    if (value.chars().allMatch(Character::isDigit)) {
      settings.put(key, Integer.parseInt(value));
    } else {
      settings.put(key, value);
    }
    assertThatThrownBy(() -> SlurmSettings.parse("hpc", settings))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(message);
  }
}
