package io.crigate.interlink.http;

import com.fasterxml.jackson.core.type.TypeReference;
import io.crigate.interlink.wire.PluginCallFailed;
import io.crigate.interlink.wire.WireJson;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * JSON over HTTP as interLink's Go components send it: any method with a JSON body (GET included),
 * an {@code InterLink-Http-Session} header per call, to {@code http(s)://host:port} or a unix socket.
 * A non-200 answer is a {@link PluginCallFailed} carrying status and body; an unreachable server is
 * {@code Unavailable}.
 */
public final class JsonHttpClient implements AutoCloseable {

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(10);

  private final HttpClient http;
  private final String base;
  private final Supplier<String> authorization;
  private final Transport unixSocket;

  /**
   * @param url {@code http(s)://host:port} or {@code unix:///path/to.sock}
   * @param authorization gives the Authorization header value per call (a token file may rotate); null for none
   */
  public JsonHttpClient(String url, Supplier<String> authorization) {
    if (!(url.startsWith("http://") || url.startsWith("https://") || url.startsWith("unix:///"))) {
      // checked here, where it is given: otherwise every call fails later, each with Jetty's own complaint
      throw new CrigateException.InvalidArgument(
          "'%s' is not a URL this client speaks: http://host:port, https://host:port or unix:///path".formatted(url));
    }
    this.unixSocket = url.startsWith("unix://") ? new Transport.TCPUnix(Path.of(url.substring("unix://".length()))) : null;
    ClientConnector connector = new ClientConnector();
    if (url.startsWith("https://")) {
      connector.setSslContextFactory(new SslContextFactory.Client());
    }
    this.http = new HttpClient(new HttpClientTransportOverHTTP(connector));
    this.http.setFollowRedirects(false);
    // a plugin may take long to answer a create (sbatch on a busy controller); a followed log is
    // silent between lines: neither may be cut by the client's default 30 s idle timeout
    this.http.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    this.base = url.startsWith("unix://") ? "http://localhost" : (url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    this.authorization = authorization;
    try {
      http.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the HTTP client for " + url, e);
    }
  }

  /** One call; the answer's body when it is 200. {@code json} may be null for no body. */
  public String send(String method, String path, String json) {
    ContentResponse response;
    try {
      response = request(method, path, json).timeout(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS).send();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while calling " + base + path);
    } catch (TimeoutException | ExecutionException e) {
      throw unreachable(e);
    }
    if (response.getStatus() != 200) {
      throw new PluginCallFailed(response.getStatus(), response.getContentAsString());
    }
    return response.getContentAsString();
  }

  /** One call whose 200 answer is decoded as {@code type}; an answer that does not decode is a 502. */
  public <T> T call(String method, String path, String json, TypeReference<T> type) {
    String body = send(method, path, json);
    try {
      return WireJson.mapper().readValue(body, type);
    } catch (IOException e) {
      throw new PluginCallFailed(502, "the answer of %s%s is not what interLink expects: %s".formatted(base, path, e.getMessage()));
    }
  }

  /** Copies the answer to {@code out} as it arrives, 4 KiB at a time with a flush after each read. */
  public void stream(String method, String path, String json, OutputStream out) throws IOException {
    InputStreamResponseListener listener = new InputStreamResponseListener();
    request(method, path, json).send(listener);
    Response response;
    try {
      response = listener.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while calling " + base + path);
    } catch (TimeoutException | ExecutionException e) {
      throw unreachable(e);
    }
    try (InputStream body = listener.getInputStream()) {
      if (response.getStatus() != 200) {
        throw new PluginCallFailed(response.getStatus(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
      }
      byte[] buffer = new byte[4096];
      for (int n; (n = body.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
    }
  }

  private Request request(String method, String path, String json) {
    Request request = http.newRequest(base + path).method(method)
        .headers(h -> h.put("InterLink-Http-Session", "Request-" + UUID.randomUUID()));
    if (unixSocket != null) {
      request.transport(unixSocket);
    }
    if (json != null) {
      request.body(new StringRequestContent("application/json", json));
    }
    if (authorization != null) {
      request.headers(h -> h.put("Authorization", authorization.get()));
    }
    return request;
  }

  private CrigateException.Unavailable unreachable(Exception e) {
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return new CrigateException.Unavailable("%s cannot be reached: %s".formatted(base, cause.getMessage()), cause);
  }

  @Override
  public void close() {
    try {
      http.stop();
    } catch (Exception e) {
      throw new IllegalStateException("cannot stop the HTTP client for " + base, e);
    }
  }
}
