package io.crigate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.crigate.images.NodeImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.crigate.scheduler.extender.ExtenderEndpoint;
import io.crigate.scheduler.extender.ExtenderServer;
import io.crigate.scheduler.extender.ExtenderTls;
import io.crigate.scheduler.extender.ImageLayerSource;
import io.crigate.scheduler.extender.InventoryInformer;
import io.crigate.scheduler.extender.LayerIndex;
import io.crigate.scheduler.extender.NodeLoadInformer;
import io.crigate.scheduler.extender.NodeLoads;
import io.crigate.scheduler.extender.NodeTable;
import io.crigate.spi.Causes;
import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code crigate extender}: the layer-aware kube-scheduler extender. */
@Command(
    name = "extender",
    mixinStandardHelpOptions = true,
    description = "Serves kube-scheduler's extender verbs (POST {url-prefix}/prioritize, /filter) from the "
        + "NodeImageLayers objects crigate publishes, the nodes' requested CPU and the pod images' registries.")
final class ExtenderCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderCommand.class);

  /** Loopback unless asked: without --client-ca anyone who reaches the port is answered (docs/SECURITY.md). */
  @Option(names = "--listen", defaultValue = "127.0.0.1",
      description = "Address to bind; another than loopback only with --tls-cert and --client-ca, or behind a network "
          + "policy that admits kube-scheduler alone. Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--port", defaultValue = "8888", description = "Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--url-prefix", defaultValue = "/crigate", description = "Must match urlPrefix in KubeSchedulerConfiguration. Default: ${DEFAULT-VALUE}")
  String urlPrefix;

  @Option(names = "--filter", description = "Serve the filter verb: fail nodes that publish no layer inventory")
  boolean filter;

  @Option(names = "--metrics", description = "Serve GET /metrics (verb latency) and /healthz on the same port")
  boolean metrics;

  @Option(names = "--tls-cert", paramLabel = "FILE", description = "PEM certificate chain to serve HTTPS with (kube-scheduler's tlsConfig.caFile must trust it)")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key of --tls-cert")
  Path tlsKey;

  @Option(names = "--client-ca", paramLabel = "FILE",
      description = "PEM CA certificates; clients must present a certificate signed by one (kube-scheduler's tlsConfig.certFile/keyFile)")
  Path clientCa;

  @Option(names = "--max-request-bytes", defaultValue = "" + ExtenderEndpoint.DEFAULT_MAX_REQUEST_BYTES,
      description = "Larger request bodies get HTTP 413; raise it only without nodeCacheCapable (full NodeLists). Default: ${DEFAULT-VALUE}")
  long maxRequestBytes;

  @Option(names = "--registry-config", paramLabel = "FILE",
      description = "YAML in the shape of crigate's images.registry section: allowedRegistries, tokenRealms, credentials, insecure, timeouts")
  Path registryConfig;

  @Option(names = "--allow-registry", paramLabel = "REGISTRY",
      description = "Registry (as in image references: docker.io, ghcr.io, host:port) whose manifests may be fetched; "
          + "repeatable; '*' allows any. Images of other registries score as unknown layers.")
  List<String> allowedRegistries = List.of();

  @Option(names = "--token-realm", paramLabel = "HOST",
      description = "Host (or host:port) besides a registry's own that its token challenge may name; repeatable (adds to auth.docker.io)")
  List<String> tokenRealms = List.of();

  @Option(names = "--insecure-registry", description = "Registry (host[:port]) spoken to over plain HTTP; repeatable")
  List<String> insecureRegistries = List.of();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    ExtenderEndpoint endpoint = endpoint();
    RegistryClientConfig config = registryConfig();
    if (config.allowedRegistries().isEmpty()) {
      LOG.warn("no registry is allowed (--allow-registry, allowedRegistries): every image scores as unknown layers");
    }
    if (endpoint.tls().flatMap(ExtenderTls::clientCaFile).isEmpty() && !loopback(host)) {
      LOG.warn("listening on {} without --client-ca: anyone who reaches the port can make this extender fetch from "
          + "the allowed registries; admit only kube-scheduler with a network policy", host);
    }
    RegistryClient registry = new RegistryClient(config);
    // in a pod: the service account; elsewhere: KUBECONFIG or ~/.kube/config
    NodeTable nodes = new NodeTable();
    LayerIndex inventories = new LayerIndex(nodes);
    NodeLoads loads = new NodeLoads(nodes);
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      // One list first: an API that cannot be reached, or that forbids the list, is then this
      // command's one line below, not a stack trace from each informer's reflector before it.
      client.resources(NodeImageLayers.class).list(new ListOptionsBuilder().withLimit(1L).build());
      try (InventoryInformer informer = new InventoryInformer(client, inventories);
          NodeLoadInformer loadInformer = new NodeLoadInformer(client, loads);
          ExtenderServer server = new ExtenderServer(endpoint, filter, inventories, loads,
              ImageLayerSource.of(registry::layers, registry::layersIfKnown),
              metrics ? new PrometheusRegistry() : null)) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
        stopped.await();
      }
    } catch (KubernetesClientException unreachable) {
      spec.commandLine().getErr().println("crigate extender: cannot list NodeImageLayers, Nodes or Pods from the Kubernetes API "
          + "(in-cluster service account, or KUBECONFIG / ~/.kube/config): " + Causes.innermost(unreachable));
      return 1;
    }
    return 0;
  }

  ExtenderEndpoint endpoint() {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key go together");
    }
    if (clientCa != null && tlsCert == null) {
      throw new ParameterException(spec.commandLine(), "--client-ca needs --tls-cert and --tls-key: client certificates are asked for in the TLS handshake");
    }
    try {
      Optional<ExtenderTls> tls = tlsCert == null ? Optional.empty()
          : Optional.of(new ExtenderTls(tlsCert, tlsKey, Optional.ofNullable(clientCa)));
      return new ExtenderEndpoint(host, port, urlPrefix, maxRequestBytes, tls);
    } catch (CrigateException.InvalidArgument bad) {
      throw new ParameterException(spec.commandLine(), bad.getMessage());
    }
  }

  /**
   * The file's settings over the defaults, except that no registry is allowed unless the file or
   * a flag names it: the extender fetches what pods name, and pods are written by anyone.
   */
  RegistryClientConfig registryConfig() {
    RegistryClientConfig base = RegistryClientConfig.defaults().withAllowedRegistries(Set.of());
    RegistryClientConfig config;
    try {
      JsonNode settings = registryConfig == null ? null : new YAMLMapper().readTree(registryConfig.toFile());
      config = RegistryClientConfig.fromSettings(settings, base);
    } catch (IOException | CrigateException.InvalidArgument bad) {
      throw new ParameterException(spec.commandLine(), "--registry-config %s: %s".formatted(registryConfig, bad.getMessage()));
    }
    for (String insecure : insecureRegistries) {
      config = config.withInsecure(insecure);
    }
    Set<String> allowed = new HashSet<>(config.allowedRegistries());
    allowed.addAll(allowedRegistries);
    Set<String> realms = new HashSet<>(config.tokenRealms());
    realms.addAll(tokenRealms);
    return config.withAllowedRegistries(allowed).withTokenRealms(realms);
  }

  private static boolean loopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
