package io.crigate.policy.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * CRI Resource Manager's {@code policy:} section (Active, ReservedResources, AvailableResources and
 * the per-policy sections) as crigate's {@code policy} section. Keys are matched case-insensitively,
 * as CRI Resource Manager's JSON decoding matches them. A per-policy setting whose value is what
 * crigate always does is mapped; one asking for anything else is refused, never silently dropped.
 */
public final class CriRmPolicySection {

  /** CRI Resource Manager's policy names and crigate's; {@code null} was its "no policy", memtier the old topology-aware. */
  private static final Map<String, String> POLICIES = Map.of(
      "null", "none", "none", "none", "static", "static", "static-plus", "static-plus",
      "topology-aware", "topology-aware", "memtier", "topology-aware", "balloons", "balloons");
  private static final String AVAILABLE = "none, static, static-plus, topology-aware, balloons";
  /** CRI Resource Manager's balloon type fields, lower-cased, and crigate's names for them. */
  private static final Map<String, String> BALLOON_TYPE_FIELDS = Map.ofEntries(
      Map.entry("name", "name"), Map.entry("namespaces", "namespaces"), Map.entry("mincpus", "minCPUs"),
      Map.entry("maxcpus", "maxCPUs"), Map.entry("allocatorpriority", "allocatorPriority"),
      Map.entry("prefernewballoons", "preferNewBalloons"), Map.entry("preferspreadingpods", "preferSpreadingPods"),
      Map.entry("minballoons", "minBalloons"), Map.entry("maxballoons", "maxBalloons"),
      Map.entry("preferpernamespaceballoon", "preferPerNamespaceBalloon"), Map.entry("shareidlecpusinsame", "shareIdleCPUsInSame"),
      Map.entry("cpuclass", "cpuClass"), Map.entry("preferisolcpus", "preferIsolCpus"),
      Map.entry("preferspreadonphysicalcores", "preferSpreadOnPhysicalCores"),
      Map.entry("allocatortopologybalancing", "allocatorTopologyBalancing"), Map.entry("prefercoretype", "preferCoreType"),
      Map.entry("preferclosetodevices", "preferCloseToDevices"));
  /** The balloons section's own settings that carry over, lower-cased, and crigate's names for them. */
  private static final Map<String, String> BALLOONS_FIELDS = Map.of(
      "reservedpoolnamespaces", "reservedPoolNamespaces", "idlecpuclass", "idleCPUClass",
      "allocatortopologybalancing", "allocatorTopologyBalancing", "preferspreadonphysicalcores", "preferSpreadOnPhysicalCores");
  /** CRI Resource Manager's CPU class fields, lower-cased, and crigate's names for them. */
  private static final Map<String, String> CPU_CLASS_FIELDS = Map.of(
      "minfreq", "minFreq", "maxfreq", "maxFreq", "uncoreminfreq", "uncoreMinFreq", "uncoremaxfreq", "uncoreMaxFreq",
      "disabledcstates", "disabledCstates");
  private static final Set<String> KNOWN_SECTIONS = Set.of("active", "reservedresources", "availableresources");

  /** Per-policy booleans whose crigate behaviour is fixed: the value crigate always has. */
  private static final Map<String, Boolean> TOPOLOGY_AWARE_FIXED = Map.of(
      "pincpu", true, "pinmemory", true, "preferisolatedcpus", true, "prefersharedcpus", false,
      "colocatepods", false, "colocatenamespaces", false);

  private CriRmPolicySection() {}

  /**
   * @param section the value of {@code policy:} in a CRI Resource Manager configuration
   * @param prefix how settings are named in findings, e.g. {@code policy}
   */
  public static ObjectNode translate(JsonNode section, String prefix, SeedFindings findings) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    if (!section.isObject()) {
      findings.refused(prefix, "must be a mapping (Active, ReservedResources, ...)");
      return out;
    }
    String active = activePolicy(section, prefix, findings, out);
    section.properties().forEach(entry -> {
      String key = entry.getKey();
      String lower = key.toLowerCase(Locale.ROOT);
      String name = prefix + "." + key;
      switch (lower) {
        case "active" -> { }
        case "reservedresources" -> cpus(CpuResource.RESERVED, entry.getValue(), name, findings, out);
        case "availableresources" -> cpus(CpuResource.AVAILABLE, entry.getValue(), name, findings, out);
        case "balloons" -> {
          if ("balloons".equals(active)) {
            balloons(entry.getValue(), name, findings, out);
          } else {
            findings.ignored(name, "configures policy 'balloons', which is not the active one");
          }
        }
        default -> policySection(lower, entry.getValue(), name, active, findings);
      }
    });
    return out;
  }

  private static String activePolicy(JsonNode section, String prefix, SeedFindings findings, ObjectNode out) {
    JsonNode active = field(section, "active");
    if (active == null) {
      return null;
    }
    String name = active.asText().strip().toLowerCase(Locale.ROOT);
    String crigate = POLICIES.get(name);
    if (crigate == null) {
      findings.refused(prefix + ".Active", "policy '%s' is not implemented by crigate (available: %s)"
          .formatted(active.asText(), AVAILABLE));
      return name;
    }
    out.put("active", crigate);
    findings.mapped(prefix + ".Active", "policy.active: " + crigate);
    return name;
  }

  /** {@code ReservedResources} and {@code AvailableResources}: their CPU entry, the one kind crigate's policies take. */
  private enum CpuResource {
    RESERVED("reservedCpus", "reserved", "{CPU: 1}"),
    AVAILABLE("availableCpus", "available", "{cpu: cpuset:0-63}");

    final String setting;
    final String adjective;
    final String example;

    CpuResource(String setting, String adjective, String example) {
      this.setting = setting;
      this.adjective = adjective;
      this.example = example;
    }
  }

  private static void cpus(CpuResource kind, JsonNode resources, String name, SeedFindings findings, ObjectNode out) {
    if (!resources.isObject()) {
      findings.refused(name, "must be a mapping such as " + kind.example);
      return;
    }
    resources.properties().forEach(entry -> {
      String setting = name + "." + entry.getKey();
      if (!entry.getKey().equalsIgnoreCase("cpu")) {
        findings.refused(setting, "crigate's policies take %s CPUs only".formatted(kind.adjective));
        return;
      }
      String value = entry.getValue().asText().strip();
      if (value.startsWith("cgroup:") || value.startsWith("/")) {
        findings.refused(setting, "reading %s CPUs from a cgroup is not supported; list them, e.g. cpuset:0-1"
            .formatted(kind.adjective));
        return;
      }
      String crigate = cpuConstraint(value);
      if (kind == CpuResource.AVAILABLE && crigate.startsWith("quantity:")) {
        findings.refused(setting, "a count of available CPUs does not say which; list them, e.g. cpuset:2-63");
        return;
      }
      out.put(kind.setting, crigate);
      findings.mapped(setting, "policy.%s: %s".formatted(kind.setting, crigate));
    });
  }

  /** CRI Resource Manager reads a plain value as a quantity unless it looks like a CPU list. */
  static String cpuConstraint(String value) {
    if (value.startsWith("cpuset:") || value.startsWith("quantity:")) {
      return value;
    }
    if (value.startsWith("#")) {
      return "cpuset:" + value.substring(1);
    }
    if (value.contains("-") || value.contains(",")) {
      return "cpuset:" + value;
    }
    return "quantity:" + value;
  }

  private static void policySection(String policy, JsonNode settings, String name, String active, SeedFindings findings) {
    boolean isActive = policy.equals(active) || (policy.equals("memtier") && "topology-aware".equals(active))
        || (policy.equals("topology-aware") && "memtier".equals(active));
    if (!isActive) {
      findings.ignored(name, "configures policy '%s', which is not the active one".formatted(policy));
      return;
    }
    if (!settings.isObject()) {
      findings.refused(name, "must be a mapping of the policy's settings");
      return;
    }
    settings.properties().forEach(entry -> {
      String setting = name + "." + entry.getKey();
      String key = entry.getKey().toLowerCase(Locale.ROOT);
      Boolean fixed = switch (policy) {
        case "static" -> key.equals("relaxedisolation") ? Boolean.FALSE : null;
        case "topology-aware", "memtier" -> TOPOLOGY_AWARE_FIXED.get(key);
        default -> null;
      };
      if (fixed == null) {
        findings.refused(setting, "crigate's %s policy has no such setting".formatted(POLICIES.get(policy)));
      } else if (entry.getValue().isBoolean() && entry.getValue().booleanValue() == fixed) {
        findings.mapped(setting, "always %s in crigate's %s policy".formatted(fixed, POLICIES.get(policy)));
      } else {
        findings.refused(setting, "crigate's %s policy always behaves as %s: %s%s".formatted(
            POLICIES.get(policy), entry.getKey(), fixed, hint(key)));
      }
    });
  }

  /**
   * The balloons policy's section: its balloon types and its own settings carry over field by field
   * (the CPU classes they name come from CRI Resource Manager's {@code cpu.classes} section, which
   * the config file translation carries to {@code policy.balloons.control}); PinCPU and PinMemory are
   * what crigate always does; anything else is refused by name.
   */
  private static void balloons(JsonNode settings, String name, SeedFindings findings, ObjectNode out) {
    if (!settings.isObject()) {
      findings.refused(name, "must be a mapping of the policy's settings");
      return;
    }
    ObjectNode balloons = out.putObject("balloons");
    settings.properties().forEach(entry -> {
      String setting = name + "." + entry.getKey();
      switch (entry.getKey().toLowerCase(Locale.ROOT)) {
        case "pincpu", "pinmemory" -> {
          if (entry.getValue().isBoolean() && entry.getValue().booleanValue()) {
            findings.mapped(setting, "always true in crigate's balloons policy");
          } else {
            findings.refused(setting, "crigate's balloons policy always pins: " + entry.getKey() + ": true");
          }
        }
        case "balloontypes" -> balloonTypes(entry.getValue(), setting, findings, balloons.putArray("balloonTypes"));
        case String key when BALLOONS_FIELDS.containsKey(key) -> {
          balloons.set(BALLOONS_FIELDS.get(key), entry.getValue());
          findings.mapped(setting, "policy.balloons." + BALLOONS_FIELDS.get(key));
        }
        default -> findings.refused(setting, "crigate's balloons policy has no such setting");
      }
    });
  }

  private static void balloonTypes(JsonNode types, String name, SeedFindings findings, ArrayNode out) {
    if (!types.isArray()) {
      findings.refused(name, "must be a list of balloon types");
      return;
    }
    for (int i = 0; i < types.size(); i++) {
      JsonNode type = types.get(i);
      String typeName = name + "[" + i + "]";
      String crigateName = "policy.balloons.balloonTypes[" + i + "].";
      if (!type.isObject()) {
        findings.refused(typeName, "must be a mapping (Name, Namespaces, MinCPUs, ...)");
        continue;
      }
      ObjectNode translated = out.addObject();
      type.properties().forEach(field -> {
        String crigate = BALLOON_TYPE_FIELDS.get(field.getKey().toLowerCase(Locale.ROOT));
        if (crigate == null) {
          findings.refused(typeName + "." + field.getKey(), "crigate's balloon types have no such field");
        } else {
          translated.set(crigate, field.getValue());
          findings.mapped(typeName + "." + field.getKey(), crigateName + crigate);
        }
      });
    }
  }

  private static String hint(String key) {
    return switch (key) {
      case "prefersharedcpus" -> " (per pod: annotation prefer-shared-cpus.resource-policy.nri.io)";
      case "preferisolatedcpus" -> " (per pod: annotation prefer-isolated-cpus.resource-policy.nri.io)";
      default -> "";
    };
  }

  private static JsonNode field(JsonNode node, String lowerName) {
    for (var entry : node.properties()) {
      if (entry.getKey().toLowerCase(Locale.ROOT).equals(lowerName)) {
        return entry.getValue();
      }
    }
    return null;
  }

  /**
   * CRI Resource Manager's {@code cpu:} section (its CPU controller): the classes' frequencies carry
   * over as the balloons policy's {@code control.cpu.classes}, where crigate's balloon types find the
   * classes they name; the controller's other knobs are refused by name.
   *
   * @return crigate's {@code policy} settings for it, empty when nothing carries over
   */
  public static ObjectNode cpuSection(JsonNode section, String prefix, SeedFindings findings) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    if (!section.isObject()) {
      findings.refused(prefix, "must be a mapping (classes: ...)");
      return out;
    }
    section.properties().forEach(entry -> {
      String setting = prefix + "." + entry.getKey();
      if (!entry.getKey().equalsIgnoreCase("classes") || !entry.getValue().isObject()) {
        findings.refused(setting, "crigate reads only the CPU classes (classes: {name: {minFreq, maxFreq, ...}})");
        return;
      }
      ObjectNode classes = out.putObject("balloons").putObject("control").putObject("cpu").putObject("classes");
      entry.getValue().properties().forEach(cpuClass -> {
        ObjectNode translated = classes.putObject(cpuClass.getKey());
        cpuClass.getValue().properties().forEach(field -> {
          String fieldName = setting + "." + cpuClass.getKey() + "." + field.getKey();
          String crigate = CPU_CLASS_FIELDS.get(field.getKey().toLowerCase(Locale.ROOT));
          if (crigate != null) {
            translated.set(crigate, field.getValue());
            findings.mapped(fieldName, "policy.balloons.control.cpu.classes.%s.%s".formatted(cpuClass.getKey(), crigate));
          } else {
            findings.refused(fieldName, "crigate's CPU classes set " + String.join(", ", new TreeSet<>(CPU_CLASS_FIELDS.values())) + " only");
          }
        });
      });
    });
    return out;
  }

  /** Whether a {@code policy:} mapping is CRI Resource Manager's (capitalised keys such as Active) rather than crigate's. */
  public static boolean looksLikeCriRm(JsonNode section) {
    if (!section.isObject()) {
      return false;
    }
    for (var entry : section.properties()) {
      String key = entry.getKey();
      if (KNOWN_SECTIONS.contains(key.toLowerCase(Locale.ROOT)) && Character.isUpperCase(key.charAt(0))) {
        return true;
      }
    }
    return false;
  }
}
