package io.crigate.interlink.wire;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The values of the downward API as the kubelet computes them: a {@code fieldRef} of the pod's
 * metadata, spec or status, and a {@code resourceFieldRef} of a container's requests or limits. The
 * virtual node resolves them for downwardAPI volume files, the plugin for env.
 */
public final class DownwardApi {

  private static final Pattern ONE_KEY = Pattern.compile("metadata\\.(labels|annotations)\\['(.+)'\\]");

  private DownwardApi() {}

  /** A fieldRef's value; an {@link IllegalArgumentException} names a path the downward API does not offer. */
  public static String field(Pod pod, String fieldPath) {
    var meta = pod.getMetadata();
    String path = Objects.requireNonNullElse(fieldPath, "");
    return switch (path) {
      case "metadata.name" -> meta.getName();
      case "metadata.namespace" -> meta.getNamespace() == null || meta.getNamespace().isBlank() ? "default" : meta.getNamespace();
      case "metadata.uid" -> meta.getUid();
      case "metadata.labels" -> lines(meta.getLabels());
      case "metadata.annotations" -> lines(meta.getAnnotations());
      case "spec.nodeName" -> Objects.requireNonNullElse(pod.getSpec().getNodeName(), "");
      case "spec.serviceAccountName" -> Objects.requireNonNullElse(pod.getSpec().getServiceAccountName(), "");
      case "status.podIP" -> pod.getStatus() == null ? "" : Objects.requireNonNullElse(pod.getStatus().getPodIP(), "");
      case "status.hostIP" -> pod.getStatus() == null ? "" : Objects.requireNonNullElse(pod.getStatus().getHostIP(), "");
      default -> oneKey(path, meta.getLabels(), meta.getAnnotations());
    };
  }

  /**
   * A resourceFieldRef's value: the container's request or limit divided by the divisor, rounded up
   * (at least 1 for a non-zero amount, as the kubelet does). A limit the container does not set is
   * the node's allocatable amount, a request it does not set is 0.
   *
   * @param allocatable the node's allocatable resources, by name ({@code cpu}, {@code memory})
   */
  public static String resource(Pod pod, String defaultContainer, ResourceFieldSelector ref, Map<String, Quantity> allocatable) {
    String containerName = ref.getContainerName() == null || ref.getContainerName().isBlank() ? defaultContainer : ref.getContainerName();
    Container container = PodReferences.containers(pod).stream().filter(c -> c.getName().equals(containerName))
        .findFirst().orElseThrow(() -> new IllegalArgumentException("resourceFieldRef names container '%s', which the pod does not have"
            .formatted(containerName)));
    String resource = Objects.requireNonNullElse(ref.getResource(), "");
    int dot = resource.indexOf('.');
    if (dot < 0 || !(resource.startsWith("limits.") || resource.startsWith("requests."))) {
      throw new IllegalArgumentException("resourceFieldRef resource '%s' is not limits.<name> or requests.<name>".formatted(resource));
    }
    String name = resource.substring(dot + 1);
    boolean limit = resource.startsWith("limits.");
    var requirements = container.getResources();
    Map<String, Quantity> set = requirements == null ? null : limit ? requirements.getLimits() : requirements.getRequests();
    Quantity amount = set == null ? null : set.get(name);
    if (amount == null && limit) {
      amount = allocatable.get(name);
      if (amount == null) {
        throw new IllegalArgumentException("container '%s' sets no %s and the node's allocatable %s is unknown"
            .formatted(containerName, resource, name));
      }
    }
    if (amount == null) {
      return "0";
    }
    BigDecimal divisor = ref.getDivisor() == null ? BigDecimal.ONE : Quantity.getAmountInBytes(ref.getDivisor());
    if (divisor.signum() <= 0) {
      throw new IllegalArgumentException("resourceFieldRef divisor '%s' is not positive".formatted(ref.getDivisor()));
    }
    BigDecimal value = Quantity.getAmountInBytes(amount).divide(divisor, 0, RoundingMode.CEILING);
    return value.toPlainString();
  }

  /** {@code key="value"} lines sorted by key, values quoted as Go's strconv.Quote does for plain text. */
  private static String lines(Map<String, String> map) {
    if (map == null || map.isEmpty()) {
      return "";
    }
    return new TreeMap<>(map).entrySet().stream().map(e -> e.getKey() + "=" + quote(e.getValue()) + "\n")
        .collect(Collectors.joining());
  }

  private static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static String oneKey(String path, Map<String, String> labels, Map<String, String> annotations) {
    Matcher match = ONE_KEY.matcher(path);
    if (!match.matches()) {
      throw new IllegalArgumentException("fieldPath '%s' is not offered by the downward API".formatted(path));
    }
    Map<String, String> source = match.group(1).equals("labels") ? labels : annotations;
    return source == null ? "" : source.getOrDefault(match.group(2), "");
  }
}
