package io.crigate.cli;

import java.util.Map;

/** Points fabric8 at an API server where nothing listens: no kubeconfig, no service account, no retries. */
final class UnreachableApi {

  /** fabric8 reads these system properties when a client is built without a config. */
  private static final Map<String, String> PROPERTIES = Map.of(
      "kubernetes.master", "https://127.0.0.1:1",
      "kubernetes.auth.tryKubeConfig", "false",
      "kubernetes.auth.tryServiceAccount", "false");
  private static final String REQUEST_RETRIES = "kubernetes.request.retry.backoffLimit";

  private UnreachableApi() {}

  /** Also without fabric8's retries inside a request, so a refused connection fails at once. */
  static void set() {
    setKeepingRequestRetries();
    System.setProperty(REQUEST_RETRIES, "0");
  }

  /** With fabric8's default retries inside a request: what a command gets unless it sets its own. */
  static void setKeepingRequestRetries() {
    PROPERTIES.forEach(System::setProperty);
  }

  /** The same, but at {@code masterUrl}, an API server that does listen (a mock). */
  static void pointAt(String masterUrl) {
    set();
    System.setProperty("kubernetes.master", masterUrl);
  }

  static void clear() {
    PROPERTIES.keySet().forEach(System::clearProperty);
    System.clearProperty(REQUEST_RETRIES);
  }
}
