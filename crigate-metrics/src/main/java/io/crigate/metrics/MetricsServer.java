package io.crigate.metrics;

import com.sun.net.httpserver.HttpExchange;
import io.crigate.spi.CrigateException;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus client's HTTP server with {@code /metrics}, plus {@code /healthz} (the process
 * answers) and {@code /readyz} (crigate serves CRI: 503 before start and while stopping).
 */
public final class MetricsServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

  private final HTTPServer server;

  private MetricsServer(HTTPServer server) {
    this.server = server;
  }

  public static MetricsServer start(MetricsSettings settings, PrometheusRegistry registry, BooleanSupplier ready) {
    try {
      HTTPServer server = HTTPServer.builder().inetAddress(settings.address()).port(settings.port())
          .registry(registry).defaultHandler(exchange -> health(exchange, ready)).buildAndStart();
      LOG.info("metrics on http://{}:{}/metrics, health on /healthz and /readyz",
          settings.address().getHostAddress(), server.getPort());
      return new MetricsServer(server);
    } catch (IOException e) {
      throw new CrigateException.Unavailable("metrics server cannot listen on %s:%d: %s"
          .formatted(settings.address().getHostAddress(), settings.port(), e.getMessage()), e);
    }
  }

  private static void health(HttpExchange exchange, BooleanSupplier ready) throws IOException {
    String path = exchange.getRequestURI().getPath();
    int status;
    String body;
    switch (path) {
      case "/healthz" -> {
        status = 200;
        body = "ok\n";
      }
      case "/readyz" -> {
        boolean serving = ready.getAsBoolean();
        status = serving ? 200 : 503;
        body = serving ? "ok\n" : "not serving CRI\n";
      }
      default -> {
        status = 404;
        body = "not found: try /metrics, /healthz or /readyz\n";
      }
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
