package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metrics server of the crigate under test, configured with {@code metrics.port: 0}. */
final class MetricsEndpoint {

  private static final Pattern LISTENING = Pattern.compile("metrics on http://127.0.0.1:(\\d+)/metrics");

  private MetricsEndpoint() {}

  /** Its base URL, from the process's log: the last start's, after a restart. */
  static URI base(CrigateExtension crigate) throws Exception {
    Matcher listening = LISTENING.matcher(Files.readString(crigate.workDir().resolve("crigate.log")));
    String port = null;
    while (listening.find()) {
      port = listening.group(1);
    }
    assertThat(port).as("crigate logs where metrics are served").isNotNull();
    return URI.create("http://127.0.0.1:" + port);
  }

  /** {@code /metrics} once a line of it matches {@code line}; fails after 20 s. */
  static String scrapeUntil(CrigateExtension crigate, Pattern line) throws Exception {
    URI metrics = base(crigate).resolve("/metrics");
    HttpClient http = HttpClient.newHttpClient();
    return await().atMost(Duration.ofSeconds(20)).until(
        () -> http.send(HttpRequest.newBuilder(metrics).build(), BodyHandlers.ofString()).body(),
        body -> line.matcher(body).find());
  }
}
