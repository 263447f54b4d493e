package io.crigate.hooks;

/**
 * Linux resource settings a hook wants, each {@code null} when the hook leaves it alone. Units are
 * the CRI's: CPU shares (2..262144), CFS quota and period in microseconds (quota -1 = unlimited),
 * memory in bytes, cpuset as a Linux CPU list, OOM score adjustment (-1000..1000).
 */
public record Resources(Long cpuShares, Long cpuQuota, Long cpuPeriod, Long memoryLimitBytes, String cpusetCpus,
    Long oomScoreAdj) {

  public static final Resources NONE = new Resources(null, null, null, null, null, null);

  public boolean isEmpty() {
    return equals(NONE);
  }

  /** These settings with every field {@code later} sets replacing ours: the later hook wins. */
  public Resources then(Resources later) {
    return new Resources(pick(cpuShares, later.cpuShares), pick(cpuQuota, later.cpuQuota),
        pick(cpuPeriod, later.cpuPeriod), pick(memoryLimitBytes, later.memoryLimitBytes),
        pick(cpusetCpus, later.cpusetCpus), pick(oomScoreAdj, later.oomScoreAdj));
  }

  public Resources withCpuShares(Long value) {
    return new Resources(value, cpuQuota, cpuPeriod, memoryLimitBytes, cpusetCpus, oomScoreAdj);
  }

  public Resources withCpuQuota(Long value) {
    return new Resources(cpuShares, value, cpuPeriod, memoryLimitBytes, cpusetCpus, oomScoreAdj);
  }

  public Resources withMemoryLimitBytes(Long value) {
    return new Resources(cpuShares, cpuQuota, cpuPeriod, value, cpusetCpus, oomScoreAdj);
  }

  public Resources withCpusetCpus(String value) {
    return new Resources(cpuShares, cpuQuota, cpuPeriod, memoryLimitBytes, value, oomScoreAdj);
  }

  public Resources withOomScoreAdj(Long value) {
    return new Resources(cpuShares, cpuQuota, cpuPeriod, memoryLimitBytes, cpusetCpus, value);
  }

  private static <T> T pick(T earlier, T later) {
    return later != null ? later : earlier;
  }
}
