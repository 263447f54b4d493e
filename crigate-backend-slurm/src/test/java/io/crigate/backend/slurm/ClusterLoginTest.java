package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.spi.CrigateException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterLoginTest {

  private static final String SECRET = "pw-$(x)-secret";

  record Case(String name, Map<String, String> env, Optional<ClusterLogin> login, String error) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Map<String, String> env(String... pairs) {
    Map<String, String> env = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  static List<Case> cases() {
    return List.of(
        new Case("no login variables", env("APP", "1", "CLUSTER_CONFIG", "module load x"), Optional.empty(), null),
        new Case("full login", env("CLUSTER_HOST", "login.hpc.example", "CLUSTER_PORT", "2222",
            "CLUSTER_USERNAME", "alice", "CLUSTER_PASSWORD", SECRET),
            Optional.of(new ClusterLogin("login.hpc.example", 2222, "alice", SECRET)), null),
        new Case("port defaults to 22", env("CLUSTER_HOST", "10.0.0.5", "CLUSTER_USERNAME", "bob",
            "CLUSTER_PASSWORD", SECRET), Optional.of(new ClusterLogin("10.0.0.5", 22, "bob", SECRET)), null),
        new Case("password only", env("CLUSTER_PASSWORD", SECRET), null, "[CLUSTER_HOST, CLUSTER_USERNAME]"),
        new Case("empty user", env("CLUSTER_HOST", "h", "CLUSTER_USERNAME", "", "CLUSTER_PASSWORD", SECRET), null,
            "[CLUSTER_USERNAME]"),
        new Case("port out of range", env("CLUSTER_HOST", "h", "CLUSTER_PORT", "70000", "CLUSTER_USERNAME", "a",
            "CLUSTER_PASSWORD", SECRET), null, "CLUSTER_PORT"),
        new Case("host with a shell word", env("CLUSTER_HOST", "h; rm -rf /", "CLUSTER_USERNAME", "a",
            "CLUSTER_PASSWORD", SECRET), null, "CLUSTER_HOST"),
        new Case("user with an option", env("CLUSTER_HOST", "h", "CLUSTER_USERNAME", "-oProxyCommand=x",
            "CLUSTER_PASSWORD", SECRET), null, "CLUSTER_USERNAME"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void readsMultiCriLoginVariables(Case c) {
    ContainerConfig.Builder config = ContainerConfig.newBuilder();
    c.env().forEach((k, v) -> config.addEnvs(KeyValue.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v))));
    if (c.error() == null) {
      assertThat(ClusterLogin.fromEnv(config.build(), "main")).isEqualTo(c.login());
    } else {
      assertThatThrownBy(() -> ClusterLogin.fromEnv(config.build(), "main"))
          .isInstanceOf(CrigateException.InvalidArgument.class)
          .hasMessageContaining("container main").hasMessageContaining(c.error()).hasMessageNotContaining(SECRET);
    }
  }

  @org.junit.jupiter.api.Test
  void printsNoPassword() {
    ClusterLogin login = new ClusterLogin("h", 22, "alice", SECRET);
    assertThat(login.toString()).isEqualTo("ClusterLogin[alice@h:22]").doesNotContain(SECRET);
    assertThat(login.ssh("/kh").toString()).doesNotContain(SECRET);
  }
}
