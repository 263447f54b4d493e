package io.crigate.interlink.seed;

import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.CrigateException;
import java.util.Map;
import java.util.Optional;

/**
 * What the virtual kubelet interLink's first releases ran ({@code vk}, Virtual Kubelet's node-cli
 * with the KNoC provider) took from its environment, and the taint it gave its node; crigate's
 * virtual node reads the same.
 *
 * @param kubeletPort {@code KUBELET_PORT}: the port of the kubelet API (logs)
 * @param podIp {@code VKUBELET_POD_IP}: the node's InternalIP, where the API server reaches that port
 * @param certFile {@code APISERVER_CERT_LOCATION}: the kubelet API's certificate chain
 * @param keyFile {@code APISERVER_KEY_LOCATION}: its key
 * @param providerConfig {@code VK_CONFIG_PATH}: the provider's configuration (knoc-cfg.json)
 * @param kubeconfig {@code CUSTOMKUBECONF}: interLink's kubeconfig for the node, instead of the pod's service account
 */
public record VirtualKubeletEnvironment(Optional<String> kubeletPort, Optional<String> podIp, Optional<String> certFile,
    Optional<String> keyFile, Optional<String> providerConfig, Optional<String> kubeconfig) {

  /** The only provider interLink's vk was built with; crigate's node plays its part. */
  public static final String KNOC = "knoc";
  /** Virtual Kubelet's taint key; its value is the provider's name. */
  public static final String PROVIDER_TAINT_KEY = "virtual-kubelet.io/provider";

  public static VirtualKubeletEnvironment of(Map<String, String> env) {
    return new VirtualKubeletEnvironment(value(env, "KUBELET_PORT"), value(env, "VKUBELET_POD_IP"),
        value(env, "APISERVER_CERT_LOCATION"), value(env, "APISERVER_KEY_LOCATION"), value(env, "VK_CONFIG_PATH"),
        value(env, "CUSTOMKUBECONF"));
  }

  /**
   * The taint Virtual Kubelet put on its node, which interLink's example pods tolerate.
   *
   * @throws CrigateException.InvalidArgument for a provider other than KNoC's, naming why
   */
  public static PingResponse.Taint providerTaint(String provider) {
    if (!KNOC.equals(provider)) {
      throw new CrigateException.InvalidArgument(("--provider %s is refused: crigate's virtual node runs pods through an "
          + "interLink API, the part of interLink's vk provider '%s'; other Virtual Kubelet providers are not built in")
          .formatted(provider, KNOC));
    }
    return new PingResponse.Taint(PROVIDER_TAINT_KEY, provider, "NoSchedule");
  }

  private static Optional<String> value(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).filter(v -> !v.isEmpty());
  }
}
