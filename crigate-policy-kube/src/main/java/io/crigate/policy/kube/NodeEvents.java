package io.crigate.policy.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Warnings on the node object, where {@code kubectl describe node} shows them. */
final class NodeEvents {

  static final String REJECTED = "PolicyConfigRejected";
  /** Node events live in {@code default}, as the kubelet's own do. */
  static final String NAMESPACE = "default";
  private static final Logger log = LoggerFactory.getLogger(NodeEvents.class);

  private final KubernetesClient client;
  private final Clock clock;

  NodeEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  void warn(String nodeName, Node node, String reason, String message) {
    String now = Instant.now(clock).toString();
    var event = new EventBuilder()
        .withNewMetadata().withGenerateName(nodeName + ".crigate-").withNamespace(NAMESPACE).endMetadata()
        .withNewInvolvedObject().withApiVersion("v1").withKind("Node").withName(nodeName)
        .withUid(node == null ? null : node.getMetadata().getUid()).endInvolvedObject()
        .withType("Warning").withReason(reason).withMessage(message)
        .withNewSource().withComponent("crigate").withHost(nodeName).endSource()
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .build();
    try {
      client.v1().events().inNamespace(NAMESPACE).resource(event).create();
    } catch (KubernetesClientException e) {
      log.warn("could not post event {} on node {}: {}", reason, nodeName, e.getMessage());
    }
  }
}
