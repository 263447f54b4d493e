package io.crigate.interlink.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How an offloaded pod reaches the API server. Its cluster address (the {@code kubernetes}
 * Service's, which the kubelet puts in every container's env) and its {@code kube-root-ca.crt}
 * rarely work from a batch cluster, so the administrator names what does, as interLink's
 * {@code KubernetesApiAddr}/{@code KubernetesApiPort} and {@code KubernetesApiCaCrt} do.
 *
 * @param host the API server's address as the remote side reaches it; null to leave the env alone
 * @param port its port (with {@code host})
 * @param caCertificate PEM of the CA that signs the API server's certificate there; null to send the
 *     cluster's {@code kube-root-ca.crt}
 */
public record PodApiAccess(String host, int port, String caCertificate) {

  public static final PodApiAccess NONE = new PodApiAccess(null, 0, null);
  private static final String ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";
  private static final String ROOT_CA_KEY = "ca.crt";

  /**
   * The pod with the kubelet's {@code KUBERNETES_*} service variables naming {@link #host}:{@link
   * #port} in each container and init container that does not set them itself; the pod as it is
   * without a host. The names keep the {@code 443} of the Service's port, as the kubelet writes them
   * and interLink's virtual kubelet sends them.
   */
  Pod withServiceEnv(Pod pod) {
    if (host == null) {
      return pod;
    }
    Pod copy = new PodBuilder(pod).build();
    copy.getSpec().getContainers().forEach(this::addServiceEnv);
    if (copy.getSpec().getInitContainers() != null) {
      copy.getSpec().getInitContainers().forEach(this::addServiceEnv);
    }
    return copy;
  }

  private void addServiceEnv(Container container) {
    List<EnvVar> env = container.getEnv() == null ? new ArrayList<>() : new ArrayList<>(container.getEnv());
    serviceEnv().forEach((name, value) -> {
      if (env.stream().noneMatch(existing -> existing.getName().equals(name))) {
        env.add(new EnvVar(name, value, null));
      }
    });
    container.setEnv(env);
  }

  private Map<String, String> serviceEnv() {
    String address = host.contains(":") ? "[" + host + "]" : host;
    String tcp = "tcp://%s:%d".formatted(address, port);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KUBERNETES_SERVICE_HOST", host);
    env.put("KUBERNETES_SERVICE_PORT", String.valueOf(port));
    env.put("KUBERNETES_SERVICE_PORT_HTTPS", String.valueOf(port));
    env.put("KUBERNETES_PORT", tcp);
    env.put("KUBERNETES_PORT_443_TCP", tcp);
    env.put("KUBERNETES_PORT_443_TCP_PROTO", "tcp");
    env.put("KUBERNETES_PORT_443_TCP_ADDR", host);
    env.put("KUBERNETES_PORT_443_TCP_PORT", String.valueOf(port));
    return env;
  }

  /** The data a projected {@code configMap} source of {@code name} reads instead of the API server's, if any. */
  Optional<Map<String, String>> replacing(String configMapName) {
    return caCertificate != null && ROOT_CA_CONFIG_MAP.equals(configMapName)
        ? Optional.of(Map.of(ROOT_CA_KEY, caCertificate)) : Optional.empty();
  }
}
