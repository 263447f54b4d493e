package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.policy.seed.SeedFinding;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * One {@code cri-resmgr-config.*} ConfigMap as crigate's {@code crigate-config.*}: same node, group
 * or default suffix, the {@code policy} data key translated. crigate reads only the policy from
 * ConfigMaps, so the other data keys (logger, dump, ...) are reported as dropped.
 */
final class CriRmConfigMap {

  static final String SEED_PREFIX = "cri-resmgr-config.";
  static final String CRIGATE_PREFIX = "crigate-config.";

  record Translated(ObjectNode configMap, List<SeedFinding> findings) {}

  private CriRmConfigMap() {}

  static Translated translate(JsonNode configMap) {
    String name = configMap.at("/metadata/name").asText();
    Translation t = new Translation(Map.of());
    String where = "ConfigMap " + name;
    if (!configMap.path("kind").asText().equals("ConfigMap") || !name.startsWith(SEED_PREFIX)) {
      t.findings.refused(where, "not a CRI Resource Manager ConfigMap (kind ConfigMap named cri-resmgr-config.*)");
      return new Translated(Migration.object(), t.findings.all());
    }
    configMap.path("data").properties().forEach(entry -> {
      JsonNode section;
      try {
        section = Migration.YAML.readTree(entry.getValue().asText());
      } catch (IOException e) {
        t.findings.refused(where + " data." + entry.getKey(), "not YAML: " + e.getMessage());
        return;
      }
      if (entry.getKey().equals("policy")) {
        CriRmConfigFile.section("policy", section == null ? Migration.object() : section, t);
      } else {
        t.findings.ignored(where + " data." + entry.getKey(),
            "crigate reads only the policy from ConfigMaps; set this in crigate's configuration file");
      }
    });
    ObjectNode out = Migration.object();
    out.put("apiVersion", "v1");
    out.put("kind", "ConfigMap");
    ObjectNode metadata = out.putObject("metadata");
    metadata.put("name", CRIGATE_PREFIX + name.substring(SEED_PREFIX.length()));
    if (configMap.at("/metadata/namespace").isTextual()) {
      metadata.put("namespace", configMap.at("/metadata/namespace").asText());
    }
    out.putObject("data").put("policy", Migration.write(t.settings.path("policy").isObject()
        ? t.settings.get("policy") : Migration.object()));
    return new Translated(out, t.findings.all().stream()
        .map(f -> f.setting().startsWith("ConfigMap ") ? f : new SeedFinding(where + " " + f.setting(), f.outcome(), f.detail()))
        .toList());
  }
}
