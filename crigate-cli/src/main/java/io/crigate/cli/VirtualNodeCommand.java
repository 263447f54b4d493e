package io.crigate.cli;

import io.crigate.interlink.http.BearerToken;
import io.crigate.interlink.node.ApiClient;
import io.crigate.interlink.node.NodeSettings;
import io.crigate.interlink.node.PodApiAccess;
import io.crigate.interlink.node.VirtualNode;
import io.crigate.interlink.seed.InterLinkConfigFile;
import io.crigate.interlink.seed.KnocProviderConfig;
import io.crigate.interlink.seed.VirtualKubeletEnvironment;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate virtual-node}: a Kubernetes node whose pods run through an interLink API
 * (crigate's {@code interlink-api} or interLink's own), with the kubelet's log path served over TLS.
 * It also takes the command line, environment and InterLinkConfig.yaml of interLink's first
 * virtual kubelet ({@code vk --nodename ... --provider knoc ...}), as docs/migrating.md lists them.
 */
@Command(
    name = "virtual-node",
    mixinStandardHelpOptions = true,
    description = "Registers a virtual Node, renews its Lease, runs the pods bound to it through an interLink API "
        + "and serves the kubelet log path (kubectl logs). Default --listen 0.0.0.0:10250.")
final class VirtualNodeCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  ServerOptions kubelet;

  @Option(names = {"--node-name", "--nodename"}, description = "The Node's name (--nodename: interLink's vk).")
  String nodeName;

  @Option(names = "--api-url", paramLabel = "URL",
      description = "The interLink API: http(s)://host:port or unix:///path.sock. Default: InterlinkURL:InterlinkPort of "
          + "the InterLinkConfig.yaml that INTERLINKCONFIGPATH names.")
  String apiUrl;

  @Option(names = "--api-token-file", paramLabel = "FILE",
      description = "Bearer token sent to the interLink API (interLink's VKTokenFile); re-read per call.")
  Path apiTokenFile;

  @Option(names = "--internal-ip", description = "Address the API server reaches the kubelet API at. Default: "
      + "$VKUBELET_POD_IP, else 127.0.0.1.")
  String internalIp;

  @Option(names = "--capacity", paramLabel = "NAME=QUANTITY",
      description = "Advertised capacity, e.g. cpu=64, memory=256Gi, pods=500; unset ones come from the plugin's ping.")
  Map<String, String> capacity = new LinkedHashMap<>();

  @Option(names = "--taint", paramLabel = "KEY[=VALUE]:EFFECT",
      description = "Node taints (default: virtual-node.interlink/no-schedule=true:NoSchedule, or with --provider "
          + "virtual-kubelet.io/provider=<provider>:NoSchedule); repeatable.")
  List<String> taints;

  @Option(names = "--status-interval", defaultValue = "5s", description = "One /status call per interval. Default: ${DEFAULT-VALUE}")
  String statusInterval;

  @Option(names = "--pod-workers", defaultValue = "" + NodeSettings.DEFAULT_POD_WORKERS,
      description = "How many pods' events are handled at once; each pod's stay in order. Default: ${DEFAULT-VALUE}")
  int podWorkers;

  @Option(names = "--kubeconfig", paramLabel = "FILE", description = "The cluster to register in (default: interLink's "
      + "$CUSTOMKUBECONF, else $KUBECONFIG, ~/.kube/config or the pod's service account).")
  Path kubeconfig;

  @Option(names = "--pod-api-server", paramLabel = "HOST:PORT",
      description = "Where offloaded pods reach the API server (interLink's KubernetesApiAddr and KubernetesApiPort): "
          + "KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT and the other KUBERNETES_* variables of every container.")
  String podApiServer;

  @Option(names = "--pod-api-ca", paramLabel = "FILE",
      description = "PEM CA certificate that offloaded pods read as kube-root-ca.crt's ca.crt (interLink's KubernetesApiCaCrt).")
  Path podApiCa;

  @Mixin
  VirtualKubeletFlags vk;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    return Servers.runUntilStopped("virtual-node", err, new ArrayDeque<>(), running -> {
      OptionRange.atLeast("--pod-workers", podWorkers, 1);
      if (nodeName == null) {
        throw new CrigateException.InvalidArgument("give the Node's name: --node-name (or interLink's --nodename)");
      }
      PodApiAccess podApi = podApiAccess();
      Map<String, String> env = System.getenv();
      VirtualKubeletEnvironment vkEnv = VirtualKubeletEnvironment.of(env);
      Optional<InterLinkConfigFile> interLink = InterLinkConfigFile.fromEnvironment(env);
      List<String> warnings = new ArrayList<>(vk.apply());
      interLink.ifPresent(file -> warnings.addAll(file.warnings(InterLinkConfigFile.Role.VIRTUAL_NODE, env)));
      warnings.forEach(w -> err.println("crigate virtual-node: warning: " + w));
      err.flush();
      String url = apiUrl != null ? apiUrl : interLink.map(InterLinkConfigFile::apiUrl).orElseThrow(() ->
          new CrigateException.InvalidArgument("give --api-url, or INTERLINKCONFIGPATH naming interLink's InterLinkConfig.yaml"));
      Path token = apiTokenFile != null || apiUrl != null ? apiTokenFile : interLink.get().tokenFile();
      kubelet.tlsCert = kubelet.tlsCert != null ? kubelet.tlsCert : vkEnv.certFile().map(Path::of).orElse(null);
      kubelet.tlsKey = kubelet.tlsKey != null ? kubelet.tlsKey : vkEnv.keyFile().map(Path::of).orElse(null);
      var endpoint = kubelet.endpoint("0.0.0.0:" + vkEnv.kubeletPort().orElse("10250"));
      if (!endpoint.unix() && !endpoint.tls()) {
        throw new CrigateException.InvalidArgument("the kubelet API is served over TLS: give --tls-cert and --tls-key "
            + "(or APISERVER_CERT_LOCATION and APISERVER_KEY_LOCATION)");
      }
      NodeSettings settings = new NodeSettings(nodeName, capacity(vkEnv), taints(),
          internalIp != null ? internalIp : vkEnv.podIp().orElse("127.0.0.1"), port(endpoint.address()),
          duration(statusInterval), Duration.ofSeconds(10), podWorkers);
      BearerToken bearer = token == null ? null : new BearerToken(token);
      ApiClient api = new ApiClient(url, bearer == null ? null : bearer::header);
      running.push(api);
      Optional<Path> clusterConfig = Optional.ofNullable(kubeconfig).or(() -> vkEnv.kubeconfig().map(Path::of));
      KubernetesClient kube = clusterConfig.isEmpty() ? new KubernetesClientBuilder().build()
          : new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(read(clusterConfig.get()))).build();
      running.push(kube);
      running.push(new VirtualNode(kube, api, settings, podApi, Clock.systemUTC()).start(endpoint));
    });
  }

  /** --pod-api-server and --pod-api-ca, checked before anything starts. */
  private PodApiAccess podApiAccess() {
    String host = null;
    int port = 0;
    if (podApiServer != null) {
      int colon = podApiServer.lastIndexOf(':');
      OptionalInt parsed = colon <= 0 ? OptionalInt.empty() : PortNumber.parse(podApiServer.substring(colon + 1), 1);
      if (parsed.isEmpty()) {
        throw new CrigateException.InvalidArgument(
            "--pod-api-server '%s' is not HOST:PORT (e.g. api.example.org:6443)".formatted(podApiServer));
      }
      host = podApiServer.substring(0, colon).replaceAll("^\\[(.*)]$", "$1");
      port = parsed.getAsInt();
    }
    String ca = null;
    if (podApiCa != null) {
      try {
        ca = Files.readString(podApiCa);
      } catch (IOException e) {
        throw new CrigateException.InvalidArgument("--pod-api-ca %s cannot be read: %s".formatted(podApiCa, e.getMessage()));
      }
      if (!ca.contains("-----BEGIN CERTIFICATE-----")) {
        throw new CrigateException.InvalidArgument("--pod-api-ca %s holds no PEM certificate".formatted(podApiCa));
      }
    }
    return new PodApiAccess(host, port, ca);
  }

  /** --capacity wins over the provider's configuration (--provider-config, else $VK_CONFIG_PATH). */
  private Map<String, String> capacity(VirtualKubeletEnvironment env) {
    Optional<Path> providerConfig = Optional.ofNullable(vk.providerConfig).or(() -> env.providerConfig().map(Path::of));
    Map<String, String> merged = new LinkedHashMap<>(providerConfig.map(f -> KnocProviderConfig.capacity(f, nodeName))
        .orElse(Map.of()));
    merged.putAll(capacity);
    return merged;
  }

  private List<PingResponse.Taint> taints() {
    if (taints != null) {
      return InProcessPlugin.parseTaints(taints);
    }
    return List.of(vk.provider == null ? NodeSettings.VIRTUAL_NODE_TAINT : VirtualKubeletEnvironment.providerTaint(vk.provider));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("--kubeconfig %s: %s".formatted(file, e.getMessage()));
    }
  }

  private static int port(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  private static Duration duration(String value) {
    try {
      return value.endsWith("ms") ? Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)))
          : Duration.parse("PT" + value.toUpperCase());
    } catch (RuntimeException e) {
      throw new CrigateException.InvalidArgument("--status-interval %s: expected e.g. 5s or 500ms".formatted(value));
    }
  }
}
