package io.crigate.interlink.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.interlink.RecordingPlugin;
import io.crigate.interlink.api.PluginClient;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.testsupport.SelfSignedTls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin API over a unix socket (interLink's {@code unix:///path} SidecarURL) and over HTTPS with given PEM files. */
class PluginTransportTest {

  @TempDir Path tmp;
  private final RecordingPlugin plugin = new RecordingPlugin();

  @Test
  void servesOnAUnixSocket() throws Exception {
    Path socket = tmp.resolve("plugin.sock");
    try (RunningServer server = HttpServers.start(HttpEndpoint.plain("unix://" + socket),
        config -> PluginRoutes.install(config, plugin))) {
      try (PluginClient client = new PluginClient(server.address(), null)) {
        assertThat(server.address()).isEqualTo("unix://" + socket);
        assertThat(client.ping().status()).isEqualTo("ok");
      }
    }
    assertThat(plugin.pings).isEqualTo(1);
  }

  @Test
  void servesHttpsWithTheGivenCertificate() throws Exception {
    SelfSignedTls.generate(tmp);
    Path cert = tmp.resolve("tls.crt");
    Path key = tmp.resolve("tls.key");

    try (RunningServer server = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0").withTls(cert, key),
        config -> PluginRoutes.install(config, plugin))) {
      assertThat(server.address()).startsWith("https://127.0.0.1:");
      HttpClient client = HttpClient.newBuilder().sslContext(SelfSignedTls.trusting(cert)).build();
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.address() + "/status"))
          .method("GET", HttpRequest.BodyPublishers.ofString("[]")).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("\"status\":\"ok\"");
    }
  }
}
