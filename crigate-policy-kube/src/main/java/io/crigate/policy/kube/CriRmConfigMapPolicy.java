package io.crigate.policy.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.policy.seed.CriRmPolicySection;
import io.crigate.policy.seed.SeedFinding;
import io.crigate.policy.seed.SeedFindings;
import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code policy} data of a CRI Resource Manager ConfigMap as crigate's policy settings. A setting
 * crigate cannot honour rejects the ConfigMap (so the node's Warning Event names it); a meaningless
 * one, and data keys other than {@code policy} (logger, dump, rdt, ...), are logged and skipped.
 */
final class CriRmConfigMapPolicy {

  private static final Logger log = LoggerFactory.getLogger(CriRmConfigMapPolicy.class);

  private CriRmConfigMapPolicy() {}

  static JsonNode translate(ConfigMap cm, JsonNode criRmPolicy) {
    String name = cm.getMetadata().getName();
    SeedFindings findings = new SeedFindings();
    JsonNode policy = CriRmPolicySection.translate(criRmPolicy, "policy", findings);
    List<SeedFinding> refused = findings.with(SeedFinding.Outcome.REFUSED);
    if (!refused.isEmpty()) {
      throw new CrigateException.InvalidArgument("CRI Resource Manager ConfigMap %s: %s".formatted(name,
          refused.stream().map(SeedFinding::line).collect(Collectors.joining("; "))));
    }
    findings.with(SeedFinding.Outcome.IGNORED).forEach(f -> log.warn("ConfigMap {}: {} skipped: {}", name, f.setting(), f.detail()));
    cm.getData().keySet().stream().filter(key -> !key.equals(ConfigMapNames.DATA_KEY)).sorted()
        .forEach(key -> log.warn("ConfigMap {}: data.{} skipped: crigate reads only the policy from ConfigMaps", name, key));
    return policy;
  }
}
