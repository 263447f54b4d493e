package io.crigate.spi.adjust;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Container cgroup resources, each field optional: as a description of a container, an absent field
 * is unknown; as a change, an absent field is left alone. The same shape as CRI's
 * LinuxContainerResources and NRI's LinuxResources, so both map onto it field by field.
 *
 * @param cpuShares cgroup v1 cpu.shares (v2 weight is derived from it by the runtime)
 * @param cpuQuota CFS quota in microseconds per period; -1 for unlimited
 * @param cpuPeriod CFS period in microseconds
 * @param cpusetCpus CPUs in Linux list format, e.g. {@code 0-3,8}
 * @param cpusetMems memory nodes in Linux list format
 * @param memoryLimit memory limit in bytes
 * @param unified cgroup v2 files by name, e.g. {@code memory.high}
 */
public record LinuxResources(OptionalLong cpuShares, OptionalLong cpuQuota, OptionalLong cpuPeriod,
    Optional<String> cpusetCpus, Optional<String> cpusetMems, OptionalLong memoryLimit,
    Map<String, String> unified) {

  public static final LinuxResources NONE = builder().build();

  public LinuxResources {
    unified = Map.copyOf(unified);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    cpuShares.ifPresent(b::cpuShares);
    cpuQuota.ifPresent(b::cpuQuota);
    cpuPeriod.ifPresent(b::cpuPeriod);
    cpusetCpus.ifPresent(b::cpusetCpus);
    cpusetMems.ifPresent(b::cpusetMems);
    memoryLimit.ifPresent(b::memoryLimit);
    unified.forEach(b::unified);
    return b;
  }

  public boolean isEmpty() {
    return equals(NONE);
  }

  /** {@code other}'s fields where set, this one's elsewhere: how a change is applied to a description. */
  public LinuxResources overriddenBy(LinuxResources other) {
    Map<String, Object> fields = fields();
    fields.putAll(other.fields());
    return fromFields(fields);
  }

  /**
   * The set fields by a stable name ({@code cpu.shares}, {@code cpuset.cpus}, {@code unified.<file>}):
   * the unit in which {@link PluginChain} tracks ownership and reports conflicts.
   */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    cpuShares.ifPresent(v -> fields.put("cpu.shares", v));
    cpuQuota.ifPresent(v -> fields.put("cpu.quota", v));
    cpuPeriod.ifPresent(v -> fields.put("cpu.period", v));
    cpusetCpus.ifPresent(v -> fields.put("cpuset.cpus", v));
    cpusetMems.ifPresent(v -> fields.put("cpuset.mems", v));
    memoryLimit.ifPresent(v -> fields.put("memory.limit", v));
    new TreeMap<>(unified).forEach((file, v) -> fields.put(UNIFIED + file, v));
    return fields;
  }

  static final String UNIFIED = "unified.";

  /** The inverse of {@link #fields()}; names it does not produce are ignored. */
  static LinuxResources fromFields(Map<String, Object> fields) {
    Builder b = new Builder();
    fields.forEach((name, value) -> {
      switch (name) {
        case "cpu.shares" -> b.cpuShares((Long) value);
        case "cpu.quota" -> b.cpuQuota((Long) value);
        case "cpu.period" -> b.cpuPeriod((Long) value);
        case "cpuset.cpus" -> b.cpusetCpus((String) value);
        case "cpuset.mems" -> b.cpusetMems((String) value);
        case "memory.limit" -> b.memoryLimit((Long) value);
        default -> {
          if (name.startsWith(UNIFIED)) {
            b.unified(name.substring(UNIFIED.length()), (String) value);
          }
        }
      }
    });
    return b.build();
  }

  /** Sets fields one at a time; fields never set stay absent. */
  public static final class Builder {
    private OptionalLong cpuShares = OptionalLong.empty();
    private OptionalLong cpuQuota = OptionalLong.empty();
    private OptionalLong cpuPeriod = OptionalLong.empty();
    private Optional<String> cpusetCpus = Optional.empty();
    private Optional<String> cpusetMems = Optional.empty();
    private OptionalLong memoryLimit = OptionalLong.empty();
    private final Map<String, String> unified = new TreeMap<>();

    private Builder() {}

    public Builder cpuShares(long shares) {
      cpuShares = OptionalLong.of(shares);
      return this;
    }

    public Builder cpuQuota(long quotaMicros) {
      cpuQuota = OptionalLong.of(quotaMicros);
      return this;
    }

    public Builder cpuPeriod(long periodMicros) {
      cpuPeriod = OptionalLong.of(periodMicros);
      return this;
    }

    public Builder cpusetCpus(String cpus) {
      cpusetCpus = Optional.of(cpus);
      return this;
    }

    public Builder cpusetMems(String mems) {
      cpusetMems = Optional.of(mems);
      return this;
    }

    public Builder memoryLimit(long bytes) {
      memoryLimit = OptionalLong.of(bytes);
      return this;
    }

    public Builder unified(String file, String value) {
      unified.put(file, value);
      return this;
    }

    public LinuxResources build() {
      return new LinuxResources(cpuShares, cpuQuota, cpuPeriod, cpusetCpus, cpusetMems, memoryLimit, unified);
    }
  }
}
