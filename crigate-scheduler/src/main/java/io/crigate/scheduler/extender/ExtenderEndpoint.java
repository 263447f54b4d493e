package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.util.Optional;

/**
 * Where and how the extender listens.
 *
 * @param host the address to bind; loopback unless the extender must be reached from elsewhere
 * @param port 0 for any free port
 * @param urlPrefix the path of kube-scheduler's extender {@code urlPrefix}, e.g. {@code /crigate}
 * @param maxRequestBytes larger request bodies are answered 413 unread
 * @param tls plain HTTP when empty
 */
public record ExtenderEndpoint(String host, int port, String urlPrefix, long maxRequestBytes, Optional<ExtenderTls> tls) {

  /**
   * Fits the largest request of a {@code nodeCacheCapable} extender at 5,000 nodes: 5,000 node
   * names of the longest legal length (253) take 1.3 MB, and a pod stored in etcd is at most
   * 1.5 MiB; {@code ExtenderRequestLimitTest} builds that request and measures it. Full
   * {@code NodeList}s (without {@code nodeCacheCapable}) are far larger and need a raised limit.
   */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 3L * 1024 * 1024;

  public ExtenderEndpoint {
    if (!PortNumber.listenable(port)) {
      throw new CrigateException.InvalidArgument("extender port must be 0 (any free port) to 65535, got " + port);
    }
    if (maxRequestBytes <= 0) {
      throw new CrigateException.InvalidArgument("extender request limit must be positive, got " + maxRequestBytes);
    }
    urlPrefix = urlPrefix.endsWith("/") ? urlPrefix.substring(0, urlPrefix.length() - 1) : urlPrefix;
  }

  public static ExtenderEndpoint plain(String host, int port, String urlPrefix) {
    return new ExtenderEndpoint(host, port, urlPrefix, DEFAULT_MAX_REQUEST_BYTES, Optional.empty());
  }
}
