package io.crigate.cli;

import io.crigate.interlink.http.BearerToken;
import io.crigate.interlink.node.ApiClient;
import io.crigate.interlink.node.NodeSettings;
import io.crigate.interlink.node.VirtualNode;
import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crigate virtual-node}: a Kubernetes node whose pods run through an interLink API
 * (crigate's {@code interlink-api} or interLink's own), with the kubelet's log path served over TLS.
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

  @Option(names = "--node-name", required = true, description = "The Node's name.")
  String nodeName;

  @Option(names = "--api-url", required = true, paramLabel = "URL",
      description = "The interLink API: http(s)://host:port or unix:///path.sock (interLink's InterlinkURL + port).")
  String apiUrl;

  @Option(names = "--api-token-file", paramLabel = "FILE",
      description = "Bearer token sent to the interLink API (interLink's VKTokenFile); re-read per call.")
  Path apiTokenFile;

  @Option(names = "--internal-ip", defaultValue = "127.0.0.1", description = "Address the API server reaches the kubelet API at.")
  String internalIp;

  @Option(names = "--capacity", paramLabel = "NAME=QUANTITY",
      description = "Advertised capacity, e.g. cpu=64, memory=256Gi, pods=500; unset ones come from the plugin's ping.")
  Map<String, String> capacity = new LinkedHashMap<>();

  @Option(names = "--taint", paramLabel = "KEY[=VALUE]:EFFECT",
      description = "Node taints (default: virtual-node.interlink/no-schedule=true:NoSchedule); repeatable.")
  List<String> taints;

  @Option(names = "--status-interval", defaultValue = "5s", description = "One /status call per interval. Default: ${DEFAULT-VALUE}")
  String statusInterval;

  @Option(names = "--pod-workers", defaultValue = "" + NodeSettings.DEFAULT_POD_WORKERS,
      description = "How many pods' events are handled at once; each pod's stay in order. Default: ${DEFAULT-VALUE}")
  int podWorkers;

  @Override
  public Integer call() throws InterruptedException {
    return Servers.runUntilStopped("virtual-node", spec.commandLine().getErr(), new ArrayDeque<>(), running -> {
      if (podWorkers < 1) {
        throw new CrigateException.InvalidArgument("--pod-workers %d: must be at least 1".formatted(podWorkers));
      }
      var endpoint = kubelet.endpoint("0.0.0.0:10250");
      if (!endpoint.unix() && !endpoint.tls()) {
        throw new CrigateException.InvalidArgument("the kubelet API is served over TLS: give --tls-cert and --tls-key");
      }
      NodeSettings settings = new NodeSettings(nodeName, capacity,
          taints == null ? List.of(NodeSettings.VIRTUAL_NODE_TAINT) : InProcessPlugin.parseTaints(taints),
          internalIp, port(endpoint.address()), duration(statusInterval), Duration.ofSeconds(10), podWorkers);
      BearerToken token = apiTokenFile == null ? null : new BearerToken(apiTokenFile);
      ApiClient api = new ApiClient(apiUrl, token == null ? null : token::header);
      running.push(api);
      KubernetesClient kube = new KubernetesClientBuilder().build();
      running.push(kube);
      running.push(new VirtualNode(kube, api, settings, Clock.systemUTC()).start(endpoint));
    });
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
