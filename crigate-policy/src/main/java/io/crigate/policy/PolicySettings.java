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
 * @param availableCpus the CPUs the policy may hand out at all (CRI Resource Manager's {@code AvailableResources}),
 *     every online one unless set; the rest are left to whatever else runs on the machine
 * @param sysfsRoot where topology is discovered
 * @param kubeletCpuManagerState the kubelet CPU manager's state file, checked before a pinning policy starts
 * @param balloons the {@code balloons} policy's types ({@link BalloonsConfig#NONE} when not set)
 */
record PolicySettings(String active, CpuSet reservedCpus, CpuSet availableCpus, Path sysfsRoot,
    Path kubeletCpuManagerState, BalloonsConfig balloons) {

  static final Set<String> KEYS = Set.of("active", "reservedCpus", "availableCpus", "sysfsRoot", "configFile",
      "kubeletCpuManagerState", "kubernetes", "balloons");
  /** Read once at start (where to look, what the machine is), so a live source may not change them. */
  static final Set<String> START_ONLY = Set.of("sysfsRoot", "configFile", "kubernetes");
  private static final String QUANTITY = "quantity:";
  private static final String CPUSET = "cpuset:";
  static final Path DEFAULT_KUBELET_STATE = Path.of("/var/lib/kubelet/cpu_manager_state");

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
    CpuSet available = availableCpus(node, topology);
    CpuSet reserved = reservedCpus(node, topology, available);
    if (!available.containsAll(reserved)) {
      throw invalid(available.equals(topology.online())
          ? "policy.reservedCpus: %s includes CPUs that are not online (online: %s)".formatted(reserved, available)
          : "policy.reservedCpus: %s includes CPUs outside policy.availableCpus (%s)".formatted(reserved, available));
    }
    if (reserved.equals(available)) {
      throw invalid("policy.reservedCpus: reserving every CPU (%s) leaves none to allocate".formatted(reserved));
    }
    Path kubeletState = Path.of(node.path("kubeletCpuManagerState").asText(DEFAULT_KUBELET_STATE.toString()));
    return new PolicySettings(active, reserved, available, sysfsRoot(node), kubeletState,
        BalloonsConfig.read(node.path("balloons")));
  }

  /** {@code availableCpus}: a CPU list, or {@code cpuset:LIST} as CRI Resource Manager writes it; all online ones when unset. */
  private static CpuSet availableCpus(JsonNode node, CpuTopology topology) {
    String value = node.path("availableCpus").asText("").strip();
    if (value.isEmpty()) {
      return topology.online();
    }
    CpuSet available = cpuList("policy.availableCpus", value.startsWith(CPUSET) ? value.substring(CPUSET.length()) : value);
    if (!topology.online().containsAll(available)) {
      throw invalid("policy.availableCpus: %s includes CPUs that are not online (online: %s)".formatted(available, topology.online()));
    }
    return available;
  }

  /**
   * {@code reservedCpus}: a CPU list ({@code 0-1}), or with CRI Resource Manager's qualifiers
   * {@code cpuset:0-1} or {@code quantity:750m}; a quantity is rounded up to whole CPUs, chosen as
   * the kubelet chooses its reserved CPUs (whole sockets, then cores, topology first).
   */
  private static CpuSet reservedCpus(JsonNode node, CpuTopology topology, CpuSet available) {
    String value = node.path("reservedCpus").asText("").strip();
    if (value.startsWith(QUANTITY)) {
      int count = CpuQuantity.wholeCpus("policy.reservedCpus", value.substring(QUANTITY.length()));
      try {
        return new CpuAllocator(topology).allocate(available, count);
      } catch (CpuAllocator.InsufficientCpus e) {
        throw invalid("policy.reservedCpus: " + e.getMessage());
      }
    }
    return cpuList("policy.reservedCpus", value.startsWith(CPUSET) ? value.substring(CPUSET.length()) : value);
  }

  private static CpuSet cpuList(String setting, String list) {
    try {
      return CpuSet.parse(list);
    } catch (IllegalArgumentException e) {
      throw invalid(setting + ": " + e.getMessage());
    }
  }

  public static Path sysfsRoot(JsonNode node) {
    return Path.of(node.path("sysfsRoot").asText("/sys"));
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
