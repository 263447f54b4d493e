package io.crigate.cli.migrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.policy.seed.CriRmPolicySection;
import io.crigate.policy.seed.SeedFindings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * A CRI Resource Manager configuration file, in either of its formats: YAML sections
 * ({@code policy:}, {@code dump:}, {@code logger:}, ...) as in its sample configs and ConfigMaps,
 * or one command-line option per line without the leading dashes ({@code policy static}).
 */
final class CriRmConfigFile {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** Top-level sections only CRI Resource Manager writes (crigate's file has none of these). */
  private static final Set<String> OWN_SECTIONS = Set.of("logger", "log", "instrumentation", "rdt", "blockio",
      "resource-manager", "control", "cpu", "cache", "agent");

  private CriRmConfigFile() {}

  /** Whether {@code file} is CRI Resource Manager's rather than crigate's YAML. */
  static boolean isCriRm(Path file) {
    if (!Files.isReadable(file)) {
      return false; // crigate's own loader reports the missing file
    }
    String text = read(file);
    JsonNode root = parse(text);
    if (root == null) {
      return !text.isBlank();
    }
    if (!root.isObject()) {
      return true; // option lines read as one plain scalar
    }
    for (var entry : root.properties()) {
      if (OWN_SECTIONS.contains(entry.getKey())) {
        return true;
      }
    }
    return CriRmPolicySection.looksLikeCriRm(root.path("policy")) || root.path("dump").has("Config");
  }

  static void translate(Path file, Translation t) {
    String text;
    try {
      text = read(file);
    } catch (UncheckedIOException e) {
      t.findings.refused(file.toString(), e.getMessage());
      return;
    }
    JsonNode root = parse(text);
    if (root != null && root.isObject()) {
      sections((ObjectNode) root, t);
    } else {
      optionLines(file, text, t);
    }
  }

  /** Translates a ConfigMap's data or a file's sections: each top-level key one section. */
  static void sections(ObjectNode root, Translation t) {
    root.properties().forEach(entry -> section(entry.getKey(), entry.getValue(), t));
  }

  static void section(String name, JsonNode value, Translation t) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "policy" -> intoPolicy(t, local -> CriRmPolicySection.translate(value, "policy", local));
      case "cpu" -> intoPolicy(t, local -> CriRmPolicySection.cpuSection(value, name, local));
      case "dump" -> value.properties().forEach(e -> {
        switch (e.getKey().toLowerCase(Locale.ROOT)) {
          case "config" -> t.dump("dump." + e.getKey(), e.getValue().asText());
          case "file" -> t.map("dump." + e.getKey(), "dump.file", e.getValue().asText());
          default -> t.findings.refused("dump." + e.getKey(), "crigate's dump has rules, file, format and redactEnv");
        }
      });
      case "logger", "log" -> value.properties().forEach(e -> {
        String setting = name + "." + e.getKey();
        if (e.getKey().equalsIgnoreCase("debug") && e.getValue().asText().strip().matches("\\*|all|true")) {
          t.map(setting, "logLevel", "debug");
        } else {
          t.findings.ignored(setting, "crigate's components are named differently; set logging.levels "
              + "(docs/operations.md) or logLevel");
        }
      });
      case "instrumentation" -> t.findings.ignored(name,
          "crigate exports Prometheus metrics from its metrics section (docs/operations.md); it has no tracing");
      default -> t.findings.refused(name, "crigate has no equivalent of CRI Resource Manager's '%s' section".formatted(name));
    }
  }

  /** Lays a section translated into crigate's {@code policy} settings over them, with its findings. */
  private static void intoPolicy(Translation t, Function<SeedFindings, ObjectNode> translate) {
    SeedFindings local = new SeedFindings();
    ObjectNode policy = translate.apply(local);
    local.all().forEach(t.findings::add);
    if (!policy.isEmpty()) {
      ObjectNode wrapper = t.settings.objectNode();
      wrapper.set("policy", policy);
      t.merge(wrapper);
    }
  }

  /** One option per line, {@code name value} or {@code name=value}; {@code #} starts a comment. */
  private static void optionLines(Path file, String text, Translation t) {
    text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).forEach(line -> {
      String[] parts = line.split("[=\\s]+", 2);
      String name = parts[0].replaceFirst("^-+", "");
      String value = parts.length > 1 ? parts[1].strip() : null;
      switch (name) {
        case "dump" -> t.dump(name, value == null ? "" : value);
        case "dump-file" -> t.map(name, "dump.file", value);
        default -> {
          SeedFlag flag = SeedArguments.FLAGS.get(name);
          if (flag == null || !flag.seed().equals(SeedFlag.CRI_RM)) {
            t.findings.refused(name, "not an option CRI Resource Manager documents (in %s)".formatted(file));
          } else if (flag.takesValue() && value == null) {
            t.findings.refused(name, "needs a value (in %s)".formatted(file));
          } else {
            SeedArguments.apply(flag, name, value, t);
          }
        }
      }
    });
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read %s: %s".formatted(file, e.getMessage()), e);
    }
  }

  private static JsonNode parse(String text) {
    try {
      JsonNode root = YAML.readTree(text);
      return root == null || root.isMissingNode() || root.isNull() ? null : root;
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
