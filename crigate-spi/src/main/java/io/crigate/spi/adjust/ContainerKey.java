package io.crigate.spi.adjust;

/**
 * Identifies a container from CreateContainer until it is removed, including in the proxy door
 * where the runtime's id is only known after CreateContainer returns. A restarted container gets a
 * new key (its attempt grows), so the dead one can be released while the new one is being placed.
 *
 * @param podId the sandbox id
 * @param name the container's name in the pod spec
 * @param attempt the kubelet's restart count (CRI metadata.attempt; NRI: the
 *     {@code io.kubernetes.container.restartCount} annotation)
 */
public record ContainerKey(String podId, String name, int attempt) {

  @Override
  public String toString() {
    return podId + "/" + name + "/" + attempt;
  }
}
