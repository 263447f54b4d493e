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
  /** Set when a CRI Resource Manager flag was seen, and whether it named the runtime to relay to. */
  boolean criRm;
  boolean runtimeGiven;
  /** Every dump specification seen, in order: CRI Resource Manager adds up repeated -dump options. */
  final List<String> dumpSpecs = new ArrayList<>();
  /** Set by {@code --reset-config}: forget the remembered policy ConfigMap instead of serving. */
  boolean resetConfig;
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

  /**
   * Adds one dump specification. CRI Resource Manager's {@code debug} entry (copy dumps into the debug
   * log) is dropped with a warning: crigate's dump always has a file of its own.
   */
  void dump(String setting, String spec) {
    List<String> kept = new ArrayList<>();
    for (String entry : spec.split(",")) {
      if (entry.strip().equalsIgnoreCase("debug")) {
        findings.ignored(setting + " debug", "crigate writes dumps to their own file (--dump-file), never into the debug log");
      } else {
        kept.add(entry);
      }
    }
    dumpSpecs.add(String.join(",", kept));
    ObjectNode dump = settings.get("dump") instanceof ObjectNode existing ? existing : settings.putObject("dump");
    dump.put("rules", String.join(",", dumpSpecs));
    findings.mapped(setting, "dump.rules: " + String.join(",", dumpSpecs));
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
