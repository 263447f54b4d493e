package io.crigate.cli;

import java.util.Map;

/** Points fabric8 at an API server where nothing listens: no kubeconfig, no service account, no retries. */
final class UnreachableApi {

  /** fabric8 reads these system properties when a client is built without a config. */
  private static final Map<String, String> PROPERTIES = Map.of(
      "kubernetes.master", "https://127.0.0.1:1",
      "kubernetes.auth.tryKubeConfig", "false",
      "kubernetes.auth.tryServiceAccount", "false",
      "kubernetes.request.retry.backoffLimit", "0");

  private UnreachableApi() {}

  static void set() {
    PROPERTIES.forEach(System::setProperty);
  }

  static void clear() {
    PROPERTIES.keySet().forEach(System::clearProperty);
  }
}
