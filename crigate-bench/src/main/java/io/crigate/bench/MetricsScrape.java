package io.crigate.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one {@code crigate serve}'s own timing of a CRI method from its Prometheus endpoint: the
 * summed seconds crigate spent serving it and the summed seconds its backend took. Scraped before
 * and after one call, the differences split that call into crigate's part and the runtime's, which
 * on a busy machine is far less noisy than comparing whole calls.
 */
final class MetricsScrape {

  private static final Pattern URL = Pattern.compile("metrics on (http://\\S+/metrics)");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** One scrape: summed seconds crigate served the method in, and summed seconds its backend took. */
  record Sums(double served, double backend) {
    /** crigate's own part of the calls between {@code before} and this scrape, in nanoseconds. */
    long ownNanosSince(Sums before) {
      return Math.round(((served - before.served) - (backend - before.backend)) * 1e9);
    }

    long servedNanosSince(Sums before) {
      return Math.round((served - before.served) * 1e9);
    }

    long backendNanosSince(Sums before) {
      return Math.round((backend - before.backend) * 1e9);
    }
  }

  private final URI uri;
  private final Pattern served;
  private final Pattern backend;

  private MetricsScrape(URI uri, String method) {
    this.uri = uri;
    this.served = Pattern.compile("^crigate_cri_request_duration_seconds_sum\\{method=\"" + method + "\"} (\\S+)$", Pattern.MULTILINE);
    this.backend = Pattern.compile("^crigate_backend_request_duration_seconds_sum\\{[^}]*method=\"" + method + "\"[^}]*} (\\S+)$",
        Pattern.MULTILINE);
  }

  /** The endpoint a crigate logged at start ({@code metrics.port: 0}), waiting for the line. */
  static MetricsScrape fromLog(Path log, String method) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      Matcher m = URL.matcher(Files.readString(log));
      if (m.find()) {
        return new MetricsScrape(URI.create(m.group(1)), method);
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no metrics endpoint in " + log);
  }

  Sums sums() throws IOException, InterruptedException {
    String text = HTTP.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    return new Sums(value(served, text), value(backend, text));
  }

  /** 0 before the first call of the method, when the series is not there yet. */
  private static double value(Pattern series, String text) {
    Matcher m = series.matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
