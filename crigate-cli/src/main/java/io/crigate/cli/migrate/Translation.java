package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.policy.seed.SeedFindings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The state of one translation of a seed system's settings: the crigate settings built so far, what
 * became of each seed setting, the arguments left for crigate's own parser, and the environment
 * (multi-cri reads some settings from variables).
 */
final class Translation {

  final ObjectNode settings = JsonNodeFactory.instance.objectNode();
  final SeedFindings findings = new SeedFindings();
  final List<String> crigateArgs = new ArrayList<>();
  final Map<String, String> environment;
  /** Set when a multi-cri-only flag was seen: multi-cri always runs an adapter (slurm by default). */
  boolean multiCri;
  String adapter = "slurm";
  /** A seed flag that replaces the command, e.g. {@code --list-policies}. */
  List<String> replacementCommand;

  Translation(Map<String, String> environment) {
    this.environment = environment;
  }

  /** Sets {@code path} (dot-separated) in the crigate settings and records the mapping. */
  void map(String seedSetting, String path, JsonNode value) {
    ObjectNode node = settings;
    String[] keys = path.split("\\.");
    for (int i = 0; i < keys.length - 1; i++) {
      node = node.has(keys[i]) ? (ObjectNode) node.get(keys[i]) : node.putObject(keys[i]);
    }
    node.set(keys[keys.length - 1], value);
    findings.mapped(seedSetting, path + ": " + value.asText());
  }

  void map(String seedSetting, String path, String value) {
    map(seedSetting, path, JsonNodeFactory.instance.textNode(value));
  }

  /** Lays a translated section (e.g. a config file's) over the settings. */
  void merge(ObjectNode translated) {
    deepSet(settings, translated);
  }

  private static void deepSet(ObjectNode target, ObjectNode source) {
    source.properties().forEach(entry -> {
      if (target.get(entry.getKey()) instanceof ObjectNode existing && entry.getValue() instanceof ObjectNode more) {
        deepSet(existing, more);
      } else {
        target.set(entry.getKey(), entry.getValue());
      }
    });
  }
}
