package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.crigate.core.config.RemoteRuntimeEndpoints;
import io.crigate.policy.seed.SeedFinding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code crigate migrate} prints: crigate's YAML for a seed system's command line, config file
 * or ConfigMaps, and every setting that did not carry over.
 *
 * @param yaml crigate's configuration file, or its ConfigMaps, as YAML documents
 * @param findings what became of each seed setting
 */
public record Migration(String yaml, List<SeedFinding> findings) {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
  private static final List<String> PROGRAMS = List.of("multi-cri", "cri-resmgr");

  /** The settings that did not carry over: warned about or refused. */
  public List<SeedFinding> dropped() {
    return findings.stream().filter(f -> f.outcome() != SeedFinding.Outcome.MAPPED).toList();
  }

  /**
   * A command line as the seed's documentation writes it; a leading program name
   * ({@code /usr/local/bin/multi-cri}, {@code ./cmd/cri-resmgr/cri-resmgr}) is skipped, and
   * {@code NAME=value} words before it are the command's environment. CRI Resource Manager's node
   * agent ({@code cri-resmgr-agent}) becomes the {@code policy.kubernetes} section.
   */
  public static Migration ofCommandLine(List<String> words, Map<String, String> environment) {
    // Variables set in front of the command, as the README writes NODE_NAME=<node> cri-resmgr-agent.
    Map<String, String> variables = new HashMap<>(environment);
    int first = 0;
    while (first < words.size() && words.get(first).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
      String word = words.get(first++);
      variables.put(word.substring(0, word.indexOf('=')), word.substring(word.indexOf('=') + 1));
    }
    List<String> args = words.subList(first, words.size());
    if (!args.isEmpty() && args.getFirst().endsWith(CriRmAgent.PROGRAM)) {
      Translation agent = new Translation(variables);
      CriRmAgent.translate(args.subList(1, args.size()), agent);
      return new Migration(write(agent.settings), agent.findings.all());
    }
    if (!args.isEmpty() && PROGRAMS.stream().anyMatch(args.getFirst()::endsWith)) {
      args = args.subList(1, args.size());
    }
    SeedArguments.SeedCommandLine line = SeedArguments.translate(args, variables);
    Translation t = new Translation(variables);
    t.merge(line.settings());
    line.findings().forEach(t.findings::add);
    crigateFlags(line.replacesServe() ? List.of() : line.crigateArgs(), t);
    if (line.replacesServe()) {
      t.findings.ignored(String.join(" ", args), "a one-off command, not a setting: run crigate " + String.join(" ", line.crigateArgs()));
    }
    return new Migration(write(t.settings), t.findings.all());
  }

  /** A CRI Resource Manager configuration file, in either of its formats. */
  public static Migration ofConfigFile(Path file, Map<String, String> environment) {
    Translation t = new Translation(environment);
    CriRmConfigFile.translate(file, t);
    return new Migration(write(t.settings), t.findings.all());
  }

  /** CRI Resource Manager ConfigMaps (one or more YAML documents) as crigate's ConfigMaps. */
  public static Migration ofConfigMaps(Path file) {
    List<SeedFinding> findings = new ArrayList<>();
    StringBuilder out = new StringBuilder();
    try (var documents = YAML.readerFor(JsonNode.class).<JsonNode>readValues(Files.readString(file))) {
      while (documents.hasNext()) {
        JsonNode document = documents.next();
        if (document == null || document.isNull()) {
          continue;
        }
        CriRmConfigMap.Translated translated = CriRmConfigMap.translate(document);
        findings.addAll(translated.findings());
        out.append("---\n").append(write(translated.configMap()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read ConfigMaps from %s: %s".formatted(file, e.getMessage()), e);
    }
    return new Migration(out.toString(), findings);
  }

  /** crigate's own flags on a seed command line (multi-cri's --remote-runtime-endpoints, CRI-RM's -dump). */
  private static void crigateFlags(List<String> args, Translation t) {
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      String value = eq >= 0 ? arg.substring(eq + 1) : i + 1 < args.size() ? args.get(++i) : "";
      switch (name) {
        case "--remote-runtime-endpoints" -> {
          t.settings.withArray("backends").addAll(RemoteRuntimeEndpoints.parse(value));
          t.findings.mapped(name, "backends: one cri backend per name:endpoint");
        }
        case "--dump-file" -> t.map(name, "dump.file", value);
        case "--config" -> t.findings.ignored(name + " " + value, "already crigate's configuration file; merge it by hand");
        default -> t.findings.refused(arg, "not a multi-cri or CRI Resource Manager flag");
      }
    }
  }

  static String write(JsonNode node) {
    try {
      return node.isEmpty() ? "{}\n" : YAML.writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode object() {
    return YAML.createObjectNode();
  }
}
