package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.VersionRequest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SecretRedactorTest {

  private final SecretRedactor redactor = new SecretRedactor(Pattern.compile(DumpSettings.DEFAULT_REDACT_ENV));

  @Test
  void everyAuthFieldIsHiddenAndTheOriginalKeepsIt() {
    PullImageRequest original = PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry/app:1"))
        .setAuth(AuthConfig.newBuilder().setUsername("bob").setPassword("hunter2").setAuth("Ym9iOmh1bnRlcjI=")
            .setServerAddress("registry").setIdentityToken("id-tok").setRegistryToken("reg-tok"))
        .build();

    PullImageRequest redacted = (PullImageRequest) redactor.redact(original);

    AuthConfig hidden = redacted.getAuth();
    assertThat(java.util.List.of(hidden.getUsername(), hidden.getPassword(), hidden.getAuth(), hidden.getServerAddress(),
        hidden.getIdentityToken(), hidden.getRegistryToken())).containsOnly(SecretRedactor.REDACTED);
    assertThat(redacted.getImage().getImage()).isEqualTo("registry/app:1");
    assertThat(original.getAuth().getPassword()).isEqualTo("hunter2");
  }

  @Test
  void envValuesWithSecretLookingNamesAreHidden() {
    CreateContainerRequest original = CreateContainerRequest.newBuilder()
        .setConfig(ContainerConfig.newBuilder()
            .addEnvs(env("PATH", "/usr/bin"))
            .addEnvs(env("db_password", "s3cret"))
            .addEnvs(env("GITHUB_TOKEN", "ghp_x"))
            .addEnvs(env("AWS_SECRET_ACCESS_KEY", "aws")))
        .setSandboxConfig(PodSandboxConfig.newBuilder().putAnnotations("a", "b"))
        .build();

    CreateContainerRequest redacted = (CreateContainerRequest) redactor.redact(original);

    assertThat(redacted.getConfig().getEnvsList()).extracting(kv -> kv.getValue().toStringUtf8())
        .containsExactly("/usr/bin", SecretRedactor.REDACTED, SecretRedactor.REDACTED, SecretRedactor.REDACTED);
    assertThat(redacted.getSandboxConfig()).isEqualTo(original.getSandboxConfig());
    assertThat(original.getConfig().getEnvs(1).getValue().toStringUtf8()).isEqualTo("s3cret");
  }

  @Test
  void envPairsInsideVerboseInfoAreHidden() {
    String spec = "{\"process\":{\"env\":[\"PATH=/bin\",\"API_KEY=abc\\\"def\"]}}";
    ContainerStatusResponse original = ContainerStatusResponse.newBuilder().putInfo("info", spec).build();

    ContainerStatusResponse redacted = (ContainerStatusResponse) redactor.redact(original);

    assertThat(redacted.getInfoMap().get("info"))
        .isEqualTo("{\"process\":{\"env\":[\"PATH=/bin\",\"API_KEY=<redacted>\"]}}");
  }

  @Test
  void aMessageWithoutSecretsIsReturnedAsIs() {
    VersionRequest request = VersionRequest.newBuilder().setVersion("v1").build();

    assertThat(redactor.redact(request)).isSameAs(request);
  }

  @Test
  void theEnvPatternIsConfigurable() {
    SecretRedactor onlyDb = new SecretRedactor(Pattern.compile("^DB_"));
    CreateContainerRequest original = CreateContainerRequest.newBuilder()
        .setConfig(ContainerConfig.newBuilder().addEnvs(env("DB_USER", "u")).addEnvs(env("API_TOKEN", "t")))
        .build();

    CreateContainerRequest redacted = (CreateContainerRequest) onlyDb.redact(original);

    assertThat(redacted.getConfig().getEnvsList()).extracting(kv -> kv.getValue().toStringUtf8())
        .containsExactly(SecretRedactor.REDACTED, "t");
  }

  private static KeyValue env(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8(value)).build();
  }
}
