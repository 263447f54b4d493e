package io.crigate.policy.kube;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** CRI Resource Manager's ConfigMap with sections besides policy, as its sample configmap has them. */
class CriRmConfigMapPolicyTest {

  @Test
  void dataKeysBesidesPolicyAreSkippedWithOneWarningEach() throws Exception {
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("cri-resmgr-config.default").endMetadata()
        .addToData("policy", "Active: static\nReservedResources:\n  CPU: 1\n")
        .addToData("logger", "Debug: resource-manager,cache\n")
        .addToData("dump", "Config: full:.*\n")
        .build();
    JsonNode policy = new ObjectMapper(new YAMLFactory()).readTree(cm.getData().get("policy"));
    Logger logger = (Logger) LoggerFactory.getLogger(CriRmConfigMapPolicy.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      JsonNode out = CriRmConfigMapPolicy.translate(cm, policy);

      assertThat(out.get("active").asText()).isEqualTo("static");
      assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
          "ConfigMap cri-resmgr-config.default: data.dump skipped: crigate reads only the policy from ConfigMaps",
          "ConfigMap cri-resmgr-config.default: data.logger skipped: crigate reads only the policy from ConfigMaps");
    } finally {
      logger.detachAppender(logged);
    }
  }
}
