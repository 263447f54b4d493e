package io.crigate.policy.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClusterPolicySettingsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static JsonNode policy(String yaml) throws Exception {
    return YAML.readTree(yaml);
  }

  @Test
  void defaultsAndTheNodeFromTheEnvironment() throws Exception {
    assertThat(ClusterPolicySettings.read(policy("active: none"), "n1")).isEmpty();
    assertThat(ClusterPolicySettings.read(policy("kubernetes: {}"), "n1")).contains(
        new ClusterPolicySettings("kube-system", "n1", "crigate.io/config-group"));
    assertThat(ClusterPolicySettings.read(policy("kubernetes: {namespace: ops, node: n2, groupLabel: pool}"), "n1"))
        .contains(new ClusterPolicySettings("ops", "n2", "pool"));
    assertThat(ClusterPolicySettings.read(policy("kubernetes: {startWait: 1500ms}"), "n1"))
        .hasValueSatisfying(s -> assertThat(s.startWait()).contains(Duration.ofMillis(1500)));
  }

  /** A misspelt key would otherwise follow the default without a word. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "kubernetes: {namspace: ops}|unknown policy.kubernetes key 'namspace' (known: namespace, node, groupLabel, startWait)",
      "kubernetes: {node: n, startWait: soon}|policy.kubernetes.startWait' must be a positive duration",
      "kubernetes: [ops]|policy.kubernetes must be a mapping",
      "kubernetes: {}|policy.kubernetes.node: no node name"})
  void badSectionsAreRefusedNamingTheKey(String yaml, String message) {
    assertThatThrownBy(() -> ClusterPolicySettings.read(policy(yaml), null))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(message);
  }
}
