package io.crigate.cli;

import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.extender.ExtenderServer;
import io.crigate.scheduler.extender.InventoryInformer;
import io.crigate.scheduler.extender.LayerIndex;
import io.crigate.scheduler.extender.NodeLoadInformer;
import io.crigate.scheduler.extender.NodeLoads;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code crigate extender}: the layer-aware kube-scheduler extender. */
@Command(
    name = "extender",
    mixinStandardHelpOptions = true,
    description = "Serves kube-scheduler's extender verbs (POST {url-prefix}/prioritize, /filter) from the "
        + "NodeImageLayers objects crigate publishes, the nodes' requested CPU and the pod images' registries.")
final class ExtenderCommand implements Callable<Integer> {

  /** Loopback unless asked: the extender has no authentication of its own (docs/SECURITY.md). */
  @Option(names = "--listen", defaultValue = "127.0.0.1",
      description = "Address; 0.0.0.0 only behind a network policy that admits kube-scheduler alone. Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--port", defaultValue = "8888", description = "Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--url-prefix", defaultValue = "/crigate", description = "Must match urlPrefix in KubeSchedulerConfiguration. Default: ${DEFAULT-VALUE}")
  String urlPrefix;

  @Option(names = "--filter", description = "Serve the filter verb: fail nodes that publish no layer inventory")
  boolean filter;

  @Option(names = "--metrics", description = "Serve GET /metrics (verb latency) and /healthz on the same port")
  boolean metrics;

  @Option(names = "--insecure-registry", description = "Registry (host[:port]) spoken to over plain HTTP; repeatable")
  List<String> insecureRegistries = List.of();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    RegistryClientConfig config = RegistryClientConfig.defaults();
    for (String registry : insecureRegistries) {
      config = config.withInsecure(registry);
    }
    RegistryClient registry = new RegistryClient(config);
    // in a pod: the service account; elsewhere: KUBECONFIG or ~/.kube/config
    LayerIndex inventories = new LayerIndex();
    NodeLoads loads = new NodeLoads();
    try (KubernetesClient client = new KubernetesClientBuilder().build();
        InventoryInformer informer = new InventoryInformer(client, inventories);
        NodeLoadInformer loadInformer = new NodeLoadInformer(client, loads);
        ExtenderServer server = new ExtenderServer(host, port, urlPrefix, filter, inventories, loads, registry::layers,
            metrics ? new PrometheusRegistry() : null)) {
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    } catch (KubernetesClientException unreachable) {
      Throwable cause = unreachable.getCause() != null ? unreachable.getCause() : unreachable;
      spec.commandLine().getErr().println("crigate extender: cannot list NodeImageLayers, Nodes or Pods from the Kubernetes API "
          + "(in-cluster service account, or KUBECONFIG / ~/.kube/config): " + cause);
      return 1;
    }
    return 0;
  }
}
