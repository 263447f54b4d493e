package io.crigate.spi.adjust;

/**
 * A container's (or pod's) Kubernetes requests and limits. Zero means "not set", as in a pod spec
 * without that entry.
 *
 * @param cpuRequestMilli CPU request in millicores
 * @param cpuLimitMilli CPU limit in millicores
 * @param memoryRequestBytes memory request in bytes
 * @param memoryLimitBytes memory limit in bytes
 */
public record ResourceRequirements(long cpuRequestMilli, long cpuLimitMilli, long memoryRequestBytes,
    long memoryLimitBytes) {

  public static final ResourceRequirements NONE = new ResourceRequirements(0, 0, 0, 0);

  public ResourceRequirements {
    if (cpuRequestMilli < 0 || cpuLimitMilli < 0 || memoryRequestBytes < 0 || memoryLimitBytes < 0) {
      throw new IllegalArgumentException("requests and limits must not be negative: " + this);
    }
  }

  /** Kubernetes defaults an unset request to the limit; this applies that rule. */
  public ResourceRequirements defaulted() {
    return new ResourceRequirements(cpuRequestMilli == 0 ? cpuLimitMilli : cpuRequestMilli, cpuLimitMilli,
        memoryRequestBytes == 0 ? memoryLimitBytes : memoryRequestBytes, memoryLimitBytes);
  }

  public boolean isEmpty() {
    return equals(NONE);
  }

  /** Both CPU and memory limited, with requests equal to limits (after defaulting). */
  public boolean isGuaranteed() {
    ResourceRequirements d = defaulted();
    return d.cpuLimitMilli > 0 && d.memoryLimitBytes > 0
        && d.cpuRequestMilli == d.cpuLimitMilli && d.memoryRequestBytes == d.memoryLimitBytes;
  }

  /** True for a request of whole CPUs, the condition for exclusive CPUs under the static policy. */
  public boolean hasIntegerCpuRequest() {
    long request = defaulted().cpuRequestMilli;
    return request > 0 && request % 1000 == 0;
  }

  public ResourceRequirements plus(ResourceRequirements other) {
    return new ResourceRequirements(cpuRequestMilli + other.cpuRequestMilli, cpuLimitMilli + other.cpuLimitMilli,
        memoryRequestBytes + other.memoryRequestBytes, memoryLimitBytes + other.memoryLimitBytes);
  }
}
