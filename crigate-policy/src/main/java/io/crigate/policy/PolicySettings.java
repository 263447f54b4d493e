package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.topology.CpuAllocator;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The {@code policy} configuration section: which policy is active and its settings. Every problem
 * is an {@link CrigateException.InvalidArgument} naming the field.
 *
 * @param active the policy's name
 * @param reservedCpus CPUs kept for system and kube daemons: never exclusive, always in the shared pool, listed or
 *     counted ({@code quantity:750m}, CRI Resource Manager's form: rounded up to whole CPUs)
 * @param sysfsRoot where topology is discovered
 * @param kubeletCpuManagerState the kubelet CPU manager's state file, checked before a pinning policy starts
 * @param balloons the {@code balloons} policy's types ({@link BalloonsConfig#NONE} when not set)
 */
record PolicySettings(String active, CpuSet reservedCpus, Path sysfsRoot, Path kubeletCpuManagerState,
    BalloonsConfig balloons) {

  static final Set<String> KEYS = Set.of("active", "reservedCpus", "sysfsRoot", "configFile", "kubeletCpuManagerState",
      "kubernetes", "balloons");
  /** Read once at start (where to look, what the machine is), so a live source may not change them. */
  static final Set<String> START_ONLY = Set.of("sysfsRoot", "configFile", "kubernetes");
  private static final String QUANTITY = "quantity:";
  private static final String CPUSET = "cpuset:";
  static final Path DEFAULT_KUBELET_STATE = Path.of("/var/lib/kubelet/cpu_manager_state");

  /** Settings without balloon types. */
  PolicySettings(String active, CpuSet reservedCpus, Path sysfsRoot, Path kubeletCpuManagerState) {
    this(active, reservedCpus, sysfsRoot, kubeletCpuManagerState, BalloonsConfig.NONE);
  }

  public static PolicySettings read(JsonNode node, Set<String> known, CpuTopology topology) {
    node.fieldNames().forEachRemaining(key -> {
      if (!KEYS.contains(key)) {
        throw invalid("policy.%s is not a known setting (known: %s)".formatted(key, String.join(", ", List.copyOf(new java.util.TreeSet<>(KEYS)))));
      }
    });
    String active = node.path("active").asText("none");
    if (!known.contains(active)) {
      throw invalid("policy.active: unknown policy '%s' (known: %s)".formatted(active, String.join(", ", new java.util.TreeSet<>(known))));
    }
    CpuSet reserved = reservedCpus(node, topology);
    if (!topology.online().containsAll(reserved)) {
      throw invalid("policy.reservedCpus: %s includes CPUs that are not online (online: %s)".formatted(reserved, topology.online()));
    }
    if (reserved.equals(topology.online())) {
      throw invalid("policy.reservedCpus: reserving every CPU (%s) leaves none to allocate".formatted(reserved));
    }
    Path kubeletState = Path.of(node.path("kubeletCpuManagerState").asText(DEFAULT_KUBELET_STATE.toString()));
    return new PolicySettings(active, reserved, sysfsRoot(node), kubeletState, BalloonsConfig.read(node.path("balloons")));
  }

  /**
   * {@code reservedCpus}: a CPU list ({@code 0-1}), or with CRI Resource Manager's qualifiers
   * {@code cpuset:0-1} or {@code quantity:750m}; a quantity is rounded up to whole CPUs, chosen as
   * the kubelet chooses its reserved CPUs (whole sockets, then cores, topology first).
   */
  private static CpuSet reservedCpus(JsonNode node, CpuTopology topology) {
    String value = node.path("reservedCpus").asText("").strip();
    if (value.startsWith(QUANTITY)) {
      int count = CpuQuantity.wholeCpus("policy.reservedCpus", value.substring(QUANTITY.length()));
      try {
        return new CpuAllocator(topology).allocate(topology.online(), count);
      } catch (CpuAllocator.InsufficientCpus e) {
        throw invalid("policy.reservedCpus: " + e.getMessage());
      }
    }
    try {
      return CpuSet.parse(value.startsWith(CPUSET) ? value.substring(CPUSET.length()) : value);
    } catch (IllegalArgumentException e) {
      throw invalid("policy.reservedCpus: " + e.getMessage());
    }
  }

  public static Path sysfsRoot(JsonNode node) {
    return Path.of(node.path("sysfsRoot").asText("/sys"));
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
