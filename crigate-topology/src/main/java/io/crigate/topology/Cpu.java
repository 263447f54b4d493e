package io.crigate.topology;

/**
 * One online logical CPU and where it sits.
 *
 * @param id the kernel's CPU number
 * @param packageId the socket
 * @param dieId the die within the socket (0 where the kernel has no die level)
 * @param node the NUMA node
 * @param coreId the physical core, unique only within its package and die
 */
public record Cpu(int id, int packageId, int dieId, int node, int coreId) {

  /** A key unique for the physical core across the machine. */
  public long coreKey() {
    return ((long) packageId << 40) | ((long) dieId << 20) | coreId;
  }
}
