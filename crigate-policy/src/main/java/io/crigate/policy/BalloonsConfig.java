package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.policy.BalloonType.AllocatorPriority;
import io.crigate.spi.CrigateException;
import io.crigate.topology.TopologyLevel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The {@code policy.balloons} section: the balloon types, in the order a namespace is matched against
 * them, and the namespaces that run on the reserved CPUs. Every problem names its field.
 *
 * @param balloonTypes the configured types; {@code reserved} and {@code default} are built in and not listed
 * @param reservedPoolNamespaces namespaces (wildcards allowed) whose pods run in the reserved balloon;
 *     {@code kube-system} always does
 * @param allocatorTopologyBalancing new balloons go to the NUMA node (then socket) with the most free CPUs instead of the tightest
 * @param cpuClasses {@code control.cpu.classes}: CPU frequency limits by class name
 * @param idleCpuClass the class of CPUs no balloon holds; empty = they go back to their hardware limits
 */
public record BalloonsConfig(List<BalloonType> balloonTypes, List<String> reservedPoolNamespaces, boolean allocatorTopologyBalancing,
    Map<String, CpuClass> cpuClasses, String idleCpuClass) {

  /**
   * A CPU class of {@code control.cpu.classes}, in kHz as cpufreq takes them.
   *
   * @param minFreq written to {@code scaling_min_freq}; 0 = left as it is
   * @param maxFreq written to {@code scaling_max_freq}; 0 = left as it is
   */
  public record CpuClass(long minFreq, long maxFreq) {}

  static final BalloonsConfig NONE = new BalloonsConfig(List.of(), List.of(), false, Map.of(), "");
  static final String RESERVED = "reserved";
  static final String DEFAULT = "default";
  private static final Set<String> KEYS = Set.of("balloonTypes", "reservedPoolNamespaces", "allocatorTopologyBalancing",
      "idleCPUClass", "control");
  private static final Set<String> TYPE_KEYS = Set.of("name", "namespaces", "minCPUs", "maxCPUs", "allocatorPriority",
      "preferNewBalloons", "preferSpreadingPods", "minBalloons", "maxBalloons", "preferPerNamespaceBalloon",
      "shareIdleCPUsInSame", "cpuClass", "preferIsolCpus");
  private static final Set<String> CLASS_KEYS = Set.of("minFreq", "maxFreq");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]*");

  public BalloonsConfig {
    balloonTypes = List.copyOf(balloonTypes);
    reservedPoolNamespaces = List.copyOf(reservedPoolNamespaces);
    cpuClasses = Map.copyOf(cpuClasses);
  }

  /** Whether any balloon or the idle CPUs have a CPU class, i.e. whether cpufreq is written at all. */
  boolean configuresFrequencies() {
    return !idleCpuClass.isEmpty() || balloonTypes.stream().anyMatch(t -> !t.cpuClass().isEmpty());
  }

  static BalloonsConfig read(JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return NONE;
    }
    String field = "policy.balloons";
    requireObject(node, field);
    checkKeys(node, field, KEYS);
    List<BalloonType> types = new ArrayList<>();
    JsonNode list = node.path("balloonTypes");
    if (!list.isMissingNode() && !list.isArray()) {
      throw invalid(field + ".balloonTypes must be a list of balloon types");
    }
    Map<String, CpuClass> classes = classes(node.path("control"), field + ".control");
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String at = "%s.balloonTypes[%d]".formatted(field, i);
      BalloonType type = readType(list.get(i), at);
      if (!names.add(type.name())) {
        throw invalid("%s.name: '%s' is defined twice".formatted(at, type.name()));
      }
      requireClass(type.cpuClass(), classes, at + ".cpuClass");
      types.add(type);
    }
    String idle = node.path("idleCPUClass").asText("");
    requireClass(idle, classes, field + ".idleCPUClass");
    return new BalloonsConfig(types, strings(node.path("reservedPoolNamespaces"), field + ".reservedPoolNamespaces"),
        bool(node.path("allocatorTopologyBalancing"), field + ".allocatorTopologyBalancing"), classes, idle);
  }

  /** {@code control.cpu.classes}: nri-plugins' layout, of which crigate reads the frequencies. */
  private static Map<String, CpuClass> classes(JsonNode control, String field) {
    if (control.isMissingNode()) {
      return Map.of();
    }
    requireObject(control, field);
    checkKeys(control, field, Set.of("cpu"));
    JsonNode cpu = control.path("cpu");
    requireObject(cpu, field + ".cpu");
    checkKeys(cpu, field + ".cpu", Set.of("classes"));
    JsonNode classes = cpu.path("classes");
    requireObject(classes, field + ".cpu.classes");
    Map<String, CpuClass> out = new LinkedHashMap<>();
    classes.fields().forEachRemaining(entry -> {
      String at = field + ".cpu.classes." + entry.getKey();
      requireObject(entry.getValue(), at);
      checkKeys(entry.getValue(), at, CLASS_KEYS);
      long min = frequency(entry.getValue().path("minFreq"), at + ".minFreq");
      long max = frequency(entry.getValue().path("maxFreq"), at + ".maxFreq");
      if (min > 0 && max > 0 && min > max) {
        throw invalid("%s: minFreq %d kHz is more than maxFreq %d kHz".formatted(at, min, max));
      }
      out.put(entry.getKey(), new CpuClass(min, max));
    });
    return out;
  }

  private static void requireClass(String name, Map<String, CpuClass> classes, String field) {
    if (!name.isEmpty() && !classes.containsKey(name)) {
      throw invalid("%s: CPU class '%s' is not defined in policy.balloons.control.cpu.classes (defined: %s)"
          .formatted(field, name, String.join(", ", new TreeSet<>(classes.keySet()))));
    }
  }

  private static long frequency(JsonNode node, String field) {
    if (node.isMissingNode()) {
      return 0;
    }
    if (!node.isIntegralNumber() || node.asLong() < 0) {
      throw invalid("%s: '%s' is not a frequency in kHz (a whole number)".formatted(field, node.asText()));
    }
    return node.asLong();
  }

  /** Whether a pod of {@code namespace} runs in the reserved balloon when it names no balloon. */
  boolean reservedNamespace(String namespace) {
    return namespace.equals("kube-system")
        || reservedPoolNamespaces.stream().anyMatch(p -> BalloonType.glob(p).matcher(namespace).matches());
  }

  private static BalloonType readType(JsonNode node, String field) {
    requireObject(node, field);
    checkKeys(node, field, TYPE_KEYS);
    String name = node.path("name").asText("");
    if (!NAME.matcher(name).matches()) {
      throw invalid("%s.name: '%s' is not a balloon type name (letters, digits, '-', '_', '.')".formatted(field, name));
    }
    if (name.equals(RESERVED) || name.equals(DEFAULT)) {
      throw invalid("%s.name: '%s' is a built-in balloon and cannot be configured as a type".formatted(field, name));
    }
    int min = count(node.path("minCPUs"), field + ".minCPUs");
    int max = count(node.path("maxCPUs"), field + ".maxCPUs");
    if (max > 0 && min > max) {
      throw invalid("%s: minCPUs %d is more than maxCPUs %d".formatted(field, min, max));
    }
    int minBalloons = count(node.path("minBalloons"), field + ".minBalloons");
    int maxBalloons = count(node.path("maxBalloons"), field + ".maxBalloons");
    if (maxBalloons > 0 && minBalloons > maxBalloons) {
      throw invalid("%s: minBalloons %d is more than maxBalloons %d".formatted(field, minBalloons, maxBalloons));
    }
    if (!node.path("cpuClass").isMissingNode() && !node.path("cpuClass").isTextual()) {
      throw invalid("%s.cpuClass: '%s' is not a CPU class name".formatted(field, node.path("cpuClass")));
    }
    return new BalloonType(name, strings(node.path("namespaces"), field + ".namespaces"), min, max,
        priority(node.path("allocatorPriority"), field + ".allocatorPriority"),
        bool(node.path("preferNewBalloons"), field + ".preferNewBalloons"),
        bool(node.path("preferSpreadingPods"), field + ".preferSpreadingPods"),
        minBalloons, maxBalloons,
        bool(node.path("preferPerNamespaceBalloon"), field + ".preferPerNamespaceBalloon"),
        level(node.path("shareIdleCPUsInSame"), field + ".shareIdleCPUsInSame"),
        node.path("cpuClass").asText(""),
        bool(node.path("preferIsolCpus"), field + ".preferIsolCpus"));
  }

  private static Optional<TopologyLevel> level(JsonNode node, String field) {
    if (node.isMissingNode() || node.isNull() || node.asText().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Arrays.stream(TopologyLevel.values()).filter(l -> l.configName().equals(node.asText())).findFirst()
        .orElseThrow(() -> invalid("%s: '%s' is not a topology level (%s)".formatted(field, node.asText(),
            String.join(", ", Arrays.stream(TopologyLevel.values()).map(TopologyLevel::configName).toList())))));
  }

  private static AllocatorPriority priority(JsonNode node, String field) {
    if (node.isMissingNode()) {
      return AllocatorPriority.HIGH;
    }
    AllocatorPriority[] all = AllocatorPriority.values();
    if (node.canConvertToInt() && node.isIntegralNumber() && node.asInt() >= 0 && node.asInt() < all.length) {
      return all[node.asInt()];
    }
    try {
      return AllocatorPriority.valueOf(node.asText().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid("%s: '%s' is not a priority (high, normal, low, none or 0-3)".formatted(field, node.asText()));
    }
  }

  private static int count(JsonNode node, String field) {
    if (node.isMissingNode()) {
      return 0;
    }
    if (!node.canConvertToInt() || !node.isIntegralNumber() || node.asInt() < 0) {
      throw invalid("%s: '%s' is not a number of CPUs (a whole number, 0 or more)".formatted(field, node.asText()));
    }
    return node.asInt();
  }

  private static boolean bool(JsonNode node, String field) {
    if (node.isMissingNode()) {
      return false;
    }
    if (!node.isBoolean()) {
      throw invalid("%s: '%s' is not true or false".formatted(field, node.asText()));
    }
    return node.asBoolean();
  }

  private static List<String> strings(JsonNode node, String field) {
    if (node.isMissingNode()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw invalid(field + " must be a list of namespaces");
    }
    List<String> out = new ArrayList<>();
    node.forEach(item -> {
      if (!item.isTextual() || item.asText().isEmpty()) {
        throw invalid("%s: '%s' is not a namespace".formatted(field, item));
      }
      out.add(item.asText());
    });
    return out;
  }

  private static void requireObject(JsonNode node, String field) {
    if (!node.isObject()) {
      throw invalid(field + " must be a mapping");
    }
  }

  private static void checkKeys(JsonNode node, String field, Set<String> known) {
    node.fieldNames().forEachRemaining(key -> {
      if (!known.contains(key)) {
        throw invalid("%s.%s is not a known setting (known: %s)".formatted(field, key, String.join(", ", new TreeSet<>(known))));
      }
    });
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
