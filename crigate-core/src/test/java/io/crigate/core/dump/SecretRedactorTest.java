package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.ExecSyncRequest;
import io.crigate.api.cri.v1.ExecSyncResponse;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.VersionRequest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  /** Issue 16 item 8: the old regex overflowed its stack on a value of 5000 characters. */
  @Test
  void aHugeValueInVerboseInfoIsRedactedWithoutOverflowingTheStack() {
    String huge = "x".repeat(200_000);
    String info = "{\"process\":{\"env\":[\"DB_PASSWORD=" + huge + "\",\"PATH=/bin\"]},\"note\":\"" + huge + "\\\"q\"}";

    ContainerStatusResponse redacted = (ContainerStatusResponse) redactor.redact(
        ContainerStatusResponse.newBuilder().putInfo("info", info).build());

    assertThat(redacted.getInfoMap().get("info")).contains("\"DB_PASSWORD=<redacted>\"", "\"PATH=/bin\"")
        .doesNotContain(huge + "\"");
  }

  @Test
  void containerdsConfigEnvsAndK8sStyleEnvInsideInfoAreHidden() {
    String info = "{\"config\":{\"envs\":[{\"key\":\"API_TOKEN\",\"value\":\"tok-1\"},{\"key\":\"PATH\","
        + "\"value\":\"/bin\"}],\"args\":[\"app\",\"--password\",\"pw-2\",\"--db-passwd=pw-3\"]},"
        + "\"spec\":{\"env\":[{\"name\":\"MY_CREDENTIAL\",\"value\":\"cred-4\"}],\"auth\":\"basic-5\"}}";

    String redacted = ((ContainerStatusResponse) redactor.redact(
        ContainerStatusResponse.newBuilder().putInfo("info", info).build())).getInfoMap().get("info");

    assertThat(redacted).doesNotContain("tok-1", "pw-2", "pw-3", "cred-4", "basic-5")
        .contains("\"key\":\"PATH\",\"value\":\"/bin\"", "\"app\"", "\"--password\"");
  }

  @Test
  void argsCommandsAnnotationsLabelsAndExecOutputAreRedacted() {
    CreateContainerRequest create = CreateContainerRequest.newBuilder()
        .setConfig(ContainerConfig.newBuilder()
            .addAllCommand(java.util.List.of("/bin/sh", "-c", "export TOKEN='tok 1'; run --password=pw1 --user bob"))
            .addAllArgs(java.util.List.of("--api-key", "key2", "DB_PASS=pw3", "--verbose", "plain"))
            .putAnnotations("vault.example/secret", "s4").putAnnotations("team", "infra")
            .putLabels("auth-token", "t5").putLabels("app", "web"))
        .build();
    CreateContainerRequest redacted = (CreateContainerRequest) redactor.redact(create);
    assertThat(redacted.toString()).doesNotContain("tok 1", "pw1", "key2", "pw3", "s4", "t5")
        .contains("infra", "web", "--verbose", "plain", "--user bob", "/bin/sh");

    ExecSyncRequest exec = ExecSyncRequest.newBuilder().setContainerId("c")
        .addAllCmd(java.util.List.of("mysql", "--password=pw6", "-e", "select 1")).build();
    assertThat(redactor.redact(exec).toString()).doesNotContain("pw6").contains("select 1");
    ExecSyncResponse output = ExecSyncResponse.newBuilder().setStdout(ByteString.copyFromUtf8("root:$6$hash"))
        .setStderr(ByteString.copyFromUtf8("e")).build();
    assertThat(((ExecSyncResponse) redactor.redact(output)).getStdout().toStringUtf8())
        .isEqualTo("<redacted: 12 bytes>");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"DB_PASS", "MYSQL_PASSWD", "GCP_CREDENTIALS", "BASIC_AUTH", "session_token", "PRIVATE_KEY"})
  void theDefaultPatternCoversCommonSecretNames(String name) {
    CreateContainerRequest redacted = (CreateContainerRequest) redactor.redact(CreateContainerRequest.newBuilder()
        .setConfig(ContainerConfig.newBuilder().addEnvs(env(name, "v"))).build());
    assertThat(redacted.getConfig().getEnvs(0).getValue().toStringUtf8()).isEqualTo(SecretRedactor.REDACTED);
  }

  private static KeyValue env(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8(value)).build();
  }
}
