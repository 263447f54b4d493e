package io.crigate.interlink;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Speaks to a plugin or interLink API the way Go's client does: any method, GET with a JSON body
 * and a Content-Length. Test-only; the product forwards with Jetty's client.
 */
public final class WireClient {

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  public WireClient(String base) {
    this(base, null);
  }

  public WireClient(String base, String token) {
    this.base = base;
    this.token = token;
  }

  public HttpResponse<String> call(String method, String path, String body) throws IOException, InterruptedException {
    return http.send(request(method, path, body).build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<InputStream> stream(String method, String path, String body) throws IOException, InterruptedException {
    return http.send(request(method, path, body).build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private HttpRequest.Builder request(String method, String path, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request;
  }
}
