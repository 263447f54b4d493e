package io.crigate.bench;

import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The experiment's API server: fabric8's mock server in CRUD mode (no kube-apiserver runs here),
 * over plain HTTP on loopback, with a kubeconfig file that crigate and the extender, separate
 * processes, find it by.
 */
final class ChainApiServer implements AutoCloseable {

  /** The mock server logs every request at INFO; thousands of them would bury the experiment's output. */
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final Path kubeconfig;

  private ChainApiServer(KubernetesMockServer server, Path kubeconfig) {
    this.server = server;
    this.client = server.createClient();
    this.kubeconfig = kubeconfig;
  }

  /** Starts the server and writes {@code dir/kubeconfig} naming it. */
  static ChainApiServer start(Path dir) throws IOException {
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init();
    Files.createDirectories(dir);
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster: {server: "http://%s:%d"}
        users:
        - name: experiment
          user: {token: experiment}
        contexts:
        - name: mock
          context: {cluster: mock, user: experiment, namespace: default}
        current-context: mock
        """.formatted(server.getHostName(), server.getPort()));
    return new ChainApiServer(server, kubeconfig);
  }

  KubernetesClient client() {
    return client;
  }

  /** The address the kubeconfig names, for a stand-in on the same port once this server is closed. */
  InetSocketAddress address() {
    return new InetSocketAddress(server.getHostName(), server.getPort());
  }

  /** For {@code KUBECONFIG} of the processes that talk to this server. */
  Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void close() throws Exception {
    MockApiShutdown.stopServerThenClose(server, client);
  }
}
