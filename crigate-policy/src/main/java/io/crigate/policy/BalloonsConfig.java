package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.policy.BalloonType.AllocatorPriority;
import io.crigate.spi.CrigateException;
import io.crigate.topology.CoreTypes;
import io.crigate.topology.TopologyLevel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * @param cpuClasses {@code control.cpu.classes}: CPU frequency limits by class name
 * @param idleCpuClass the class of CPUs no balloon holds; empty = they go back to their hardware limits
 */
public record BalloonsConfig(List<BalloonType> balloonTypes, List<String> reservedPoolNamespaces, Map<String, CpuClass> cpuClasses,
    String idleCpuClass) {

  /**
   * A CPU class of {@code control.cpu.classes}, frequencies in kHz as the kernel takes them.
   *
   * @param minFreq written to {@code scaling_min_freq}; 0 = left as it is
   * @param maxFreq written to {@code scaling_max_freq}; 0 = left as it is
   * @param uncoreMinFreq the uncore's minimum for the dies its CPUs are on (the highest of the classes there); 0 = none
   * @param uncoreMaxFreq the uncore's maximum likewise; 0 = none
   * @param disabledCstates cpuidle states (by name, e.g. C6) its CPUs may not enter; every other state is enabled
   */
  public record CpuClass(long minFreq, long maxFreq, long uncoreMinFreq, long uncoreMaxFreq, List<String> disabledCstates) {
    public CpuClass {
      disabledCstates = List.copyOf(disabledCstates);
    }

    boolean setsUncore() {
      return uncoreMinFreq > 0 || uncoreMaxFreq > 0;
    }
  }

  static final BalloonsConfig NONE = new BalloonsConfig(List.of(), List.of(), Map.of(), "");
  static final String RESERVED = "reserved";
  static final String DEFAULT = "default";
  private static final Set<String> KEYS = Set.of("balloonTypes", "reservedPoolNamespaces", "allocatorTopologyBalancing",
      "preferSpreadOnPhysicalCores", "idleCPUClass", "control");
  private static final Set<String> TYPE_KEYS = Set.of("name", "namespaces", "minCPUs", "maxCPUs", "allocatorPriority",
      "preferNewBalloons", "preferSpreadingPods", "minBalloons", "maxBalloons", "preferPerNamespaceBalloon",
      "shareIdleCPUsInSame", "cpuClass", "preferIsolCpus", "preferSpreadOnPhysicalCores", "allocatorTopologyBalancing",
      "preferCoreType", "preferCloseToDevices");
  private static final Set<String> CLASS_KEYS = Set.of("minFreq", "maxFreq", "uncoreMinFreq", "uncoreMaxFreq", "disabledCstates");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]*");

  public BalloonsConfig {
    balloonTypes = List.copyOf(balloonTypes);
    reservedPoolNamespaces = List.copyOf(reservedPoolNamespaces);
    cpuClasses = Collections.unmodifiableMap(new LinkedHashMap<>(cpuClasses)); // in configuration order: errors name the first
  }

  /** Whether any balloon or the idle CPUs have a CPU class, i.e. whether sysfs is written at all. */
  boolean configuresCpuClasses() {
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
    // Policy-level defaults that a type may override with the same key.
    boolean spread = bool(node.path("preferSpreadOnPhysicalCores"), field + ".preferSpreadOnPhysicalCores");
    boolean balancing = bool(node.path("allocatorTopologyBalancing"), field + ".allocatorTopologyBalancing");
    for (int i = 0; i < list.size(); i++) {
      String at = "%s.balloonTypes[%d]".formatted(field, i);
      BalloonType type = readType(list.get(i), at, spread, balancing);
      if (!names.add(type.name())) {
        throw invalid("%s.name: '%s' is defined twice".formatted(at, type.name()));
      }
      requireClass(type.cpuClass(), classes, at + ".cpuClass");
      types.add(type);
    }
    String idle = node.path("idleCPUClass").asText("");
    requireClass(idle, classes, field + ".idleCPUClass");
    return new BalloonsConfig(types, strings(node.path("reservedPoolNamespaces"), field + ".reservedPoolNamespaces"), classes, idle);
  }

  /** {@code control.cpu.classes}: nri-plugins' layout and keys. */
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
      JsonNode cpuClass = entry.getValue();
      long min = frequency(cpuClass.path("minFreq"), at + ".minFreq");
      long max = frequency(cpuClass.path("maxFreq"), at + ".maxFreq");
      requireOrdered(at, "minFreq", min, "maxFreq", max);
      long uncoreMin = frequency(cpuClass.path("uncoreMinFreq"), at + ".uncoreMinFreq");
      long uncoreMax = frequency(cpuClass.path("uncoreMaxFreq"), at + ".uncoreMaxFreq");
      requireOrdered(at, "uncoreMinFreq", uncoreMin, "uncoreMaxFreq", uncoreMax);
      out.put(entry.getKey(), new CpuClass(min, max, uncoreMin, uncoreMax,
          names(cpuClass.path("disabledCstates"), at + ".disabledCstates", "C-state name")));
    });
    return out;
  }

  private static void requireOrdered(String field, String minKey, long min, String maxKey, long max) {
    if (min > 0 && max > 0 && min > max) {
      throw invalid("%s: %s %d kHz is more than %s %d kHz".formatted(field, minKey, min, maxKey, max));
    }
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

  private static BalloonType readType(JsonNode node, String field, boolean spreadByDefault, boolean balancingByDefault) {
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
        bool(node.path("preferIsolCpus"), field + ".preferIsolCpus"),
        bool(node.path("preferSpreadOnPhysicalCores"), field + ".preferSpreadOnPhysicalCores", spreadByDefault),
        bool(node.path("allocatorTopologyBalancing"), field + ".allocatorTopologyBalancing", balancingByDefault),
        coreType(node.path("preferCoreType"), field + ".preferCoreType"),
        devices(node.path("preferCloseToDevices"), field + ".preferCloseToDevices"));
  }

  private static Optional<CoreTypes.Kind> coreType(JsonNode node, String field) {
    if (node.isMissingNode() || node.isNull() || node.asText().isEmpty()) {
      return Optional.empty();
    }
    for (CoreTypes.Kind kind : CoreTypes.Kind.values()) {
      if (kind.name().toLowerCase(Locale.ROOT).equals(node.asText())) {
        return Optional.of(kind);
      }
    }
    throw invalid("%s: '%s' is not a core type (performance, efficient)".formatted(field, node.asText()));
  }

  /** Device paths as the host names them: under /sys/, read below policy.sysfsRoot. */
  private static List<String> devices(JsonNode node, String field) {
    List<String> paths = names(node, field, "sysfs device path");
    for (int i = 0; i < paths.size(); i++) {
      if (!paths.get(i).startsWith("/sys/")) {
        throw invalid("%s[%d]: '%s' is not a sysfs device path (like /sys/class/net/eth0)".formatted(field, i, paths.get(i)));
      }
    }
    return paths;
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
    return bool(node, field, false);
  }

  private static boolean bool(JsonNode node, String field, boolean absent) {
    if (node.isMissingNode()) {
      return absent;
    }
    if (!node.isBoolean()) {
      throw invalid("%s: '%s' is not true or false".formatted(field, node.asText()));
    }
    return node.asBoolean();
  }

  private static List<String> strings(JsonNode node, String field) {
    return names(node, field, "namespace");
  }

  /** A list of non-empty strings; {@code what} names one item in the error. */
  private static List<String> names(JsonNode node, String field, String what) {
    if (node.isMissingNode()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw invalid("%s must be a list of %ss".formatted(field, what));
    }
    List<String> out = new ArrayList<>();
    node.forEach(item -> {
      if (!item.isTextual() || item.asText().isEmpty()) {
        throw invalid("%s: '%s' is not a %s".formatted(field, item, what));
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
