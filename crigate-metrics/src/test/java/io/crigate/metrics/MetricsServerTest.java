package io.crigate.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(MetricsServer server, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesMetricsHealthAndReadiness() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    Counter.builder().name("crigate_test_things_total").help("things").register(registry).inc(3);
    AtomicBoolean serving = new AtomicBoolean();
    try (MetricsServer server = MetricsServer.start(new MetricsSettings(true, InetAddress.getLoopbackAddress(), 0),
        registry, serving::get)) {

      assertThat(get(server, "/metrics").body()).contains("crigate_test_things_total 3.0");
      assertThat(get(server, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(server, "/readyz").statusCode()).as("before the gateway serves").isEqualTo(503);
      serving.set(true);
      assertThat(get(server, "/readyz").statusCode()).isEqualTo(200);
      assertThat(get(server, "/nothing").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void offByDefaultAndOnLoopbackWhenEnabled() throws Exception {
    MetricsSettings absent = MetricsSettings.parse(null);
    MetricsSettings enabled = MetricsSettings.parse(new ObjectMapper().readTree("{\"enabled\":true}"));

    assertThat(absent.enabled()).isFalse();
    assertThat(enabled.enabled()).isTrue();
    assertThat(enabled.address().isLoopbackAddress()).isTrue();
    assertThat(enabled.port()).isEqualTo(MetricsSettings.DEFAULT_PORT);
  }
}
