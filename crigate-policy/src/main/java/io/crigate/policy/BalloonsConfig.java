package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.policy.BalloonType.AllocatorPriority;
import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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
 */
public record BalloonsConfig(List<BalloonType> balloonTypes, List<String> reservedPoolNamespaces) {

  static final BalloonsConfig NONE = new BalloonsConfig(List.of(), List.of());
  static final String RESERVED = "reserved";
  static final String DEFAULT = "default";
  private static final Set<String> KEYS = Set.of("balloonTypes", "reservedPoolNamespaces");
  private static final Set<String> TYPE_KEYS = Set.of("name", "namespaces", "minCPUs", "maxCPUs", "allocatorPriority",
      "preferNewBalloons", "preferSpreadingPods");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]*");

  public BalloonsConfig {
    balloonTypes = List.copyOf(balloonTypes);
    reservedPoolNamespaces = List.copyOf(reservedPoolNamespaces);
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
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      BalloonType type = readType(list.get(i), "%s.balloonTypes[%d]".formatted(field, i));
      if (!names.add(type.name())) {
        throw invalid("%s.balloonTypes[%d].name: '%s' is defined twice".formatted(field, i, type.name()));
      }
      types.add(type);
    }
    return new BalloonsConfig(types, strings(node.path("reservedPoolNamespaces"), field + ".reservedPoolNamespaces"));
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
    return new BalloonType(name, strings(node.path("namespaces"), field + ".namespaces"), min, max,
        priority(node.path("allocatorPriority"), field + ".allocatorPriority"),
        bool(node.path("preferNewBalloons"), field + ".preferNewBalloons"),
        bool(node.path("preferSpreadingPods"), field + ".preferSpreadingPods"));
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
