package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.spi.CrigateException;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.ServerConnectionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kube-scheduler extender over HTTP(S): {@code POST {urlPrefix}/prioritize} and
 * {@code POST {urlPrefix}/filter}. Malformed requests get 400 with a message naming the problem,
 * bodies above {@link ExtenderEndpoint#maxRequestBytes()} 413.
 */
public final class ExtenderServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
  /**
   * Answers up to this size go out as one buffer with the headers; larger ones in two writes, see
   * {@link #sendJson}. Above Helidon's default write buffer (4 KiB), so that the second write
   * bypasses the stream's buffer.
   */
  static final int ONE_BUFFER_ANSWER = 16 * 1024;
  /** The answer's first bytes, sent with the headers when it is sent in two writes. */
  private static final int HEAD_BYTES = 1024;
  private final ExtenderVerbs verbs;
  private final WebServer server;
  private final VerbMetrics latency;

  /**
   * Plain HTTP with the default request limit (tests and benchmarks on loopback).
   *
   * @param urlPrefix the {@code urlPrefix} path of kube-scheduler's extender config, e.g. {@code /crigate}
   * @param port 0 for any free port
   * @param filter whether to serve the {@code filter} verb (off: it answers 404)
   * @param loads each node's CPU load, which a {@link NodeLoadInformer} keeps current
   */
  public ExtenderServer(String host, int port, String urlPrefix, boolean filter, LayerIndex inventories,
      NodeLoads loads, Function<String, ImageLayers> registry) {
    this(ExtenderEndpoint.plain(host, port, urlPrefix), filter, inventories, loads, registry, null);
  }

  /**
   * @param metrics when not null, each verb's latency goes into it and it is served on
   *     {@code GET /metrics} (with {@code /healthz}) on the same port
   */
  public ExtenderServer(ExtenderEndpoint endpoint, boolean filter, LayerIndex inventories,
      NodeLoads loads, Function<String, ImageLayers> registry, PrometheusRegistry metrics) {
    this.verbs = new ExtenderVerbs(inventories, loads, registry);
    this.latency = metrics == null ? null : new VerbMetrics(metrics);
    String prefix = endpoint.urlPrefix();
    var builder = WebServer.builder();
    endpoint.tls().ifPresent(tls -> builder.tls(tls.helidonTls()));
    this.server = builder
        .host(endpoint.host())
        .port(endpoint.port())
        .maxPayloadSize(endpoint.maxRequestBytes())
        // Nagle's algorithm against the client's delayed ACK holds a reply written in two parts for
        // ~40 ms; a scheduler waiting on every pod cannot afford that.
        .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
        .routing(r -> {
          r.post(prefix + "/prioritize", this::prioritize);
          if (filter) {
            r.post(prefix + "/filter", this::filter);
          }
          if (latency != null) {
            r.get("/metrics", latency::scrape);
            r.get("/healthz", (request, response) -> response.send("ok\n"));
          }
        })
        .build()
        .start();
    LOG.info("crigate extender listening on {}://{}:{}{}/prioritize (filter verb {}, client certificates {})",
        endpoint.tls().isPresent() ? "https" : "http", endpoint.host(), server.port(), prefix, filter ? "on" : "off",
        endpoint.tls().flatMap(ExtenderTls::clientCaFile).isPresent() ? "required" : "not asked");
  }

  public int port() {
    return server.port();
  }

  private void prioritize(ServerRequest request, ServerResponse response) {
    long start = System.nanoTime();
    answer(response, sink -> verbs.prioritize(body(request), sink));
    if (latency != null) {
      latency.prioritize.observe((System.nanoTime() - start) / 1e9);
    }
  }

  private void filter(ServerRequest request, ServerResponse response) {
    long start = System.nanoTime();
    answer(response, sink -> verbs.filter(body(request), sink));
    if (latency != null) {
      latency.filter.observe((System.nanoTime() - start) / 1e9);
    }
  }

  /**
   * The body as the server reads it off the connection; {@link ExtenderVerbs} reads it whole into a
   * reused buffer before parsing, so a body over the limit is refused with 413 by the server before
   * the verb starts (streamed into the parser, a 4 MiB body once lost its 413 answer:
   * ExtenderRequestLimitTest saw a broken pipe instead).
   */
  private static InputStream body(ServerRequest request) {
    if (!request.content().hasEntity()) {
      throw new CrigateException.InvalidArgument("empty request body: expected a JSON object with Pod and Nodes or NodeNames");
    }
    return request.content().inputStream();
  }

  private interface Verb {
    void run(ExtenderVerbs.AnswerSink sink);
  }

  private static void answer(ServerResponse response, Verb verb) {
    try {
      verb.run((bytes, offset, length) -> sendJson(response, bytes, offset, length));
    } catch (CrigateException.InvalidArgument bad) {
      response.status(Status.BAD_REQUEST_400).send(("bad extender request: " + bad.getMessage() + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Sends a JSON answer from the caller's buffer, which may be reused once this returns. Helidon's
   * {@code send(bytes, offset, length)} copies the entity behind the headers into a new buffer of
   * its size (330 KB for 5,000 hosts, every call). A large answer is therefore written through the
   * response's stream with its length set: the headers and the answer's first {@value #HEAD_BYTES}
   * bytes as one write, then the rest straight from {@code bytes} (Helidon wraps it without a copy
   * and writes it to the socket before returning: its writer is synchronous unless a write queue is
   * configured, which this server does not). Small answers (the 400s, a few hosts) keep the single
   * buffer.
   */
  static void sendJson(ServerResponse response, byte[] bytes, int offset, int length) {
    response.header(HeaderValues.CONTENT_TYPE_JSON);
    if (length <= ONE_BUFFER_ANSWER) {
      response.send(bytes, offset, length);
      return;
    }
    response.contentLength(length);
    try (OutputStream out = response.outputStream()) {
      out.write(bytes, offset, HEAD_BYTES);
      out.write(bytes, offset + HEAD_BYTES, length - HEAD_BYTES);
    } catch (IOException e) {
      throw new ServerConnectionException("writing the extender's answer failed", e);
    }
  }

  @Override
  public void close() {
    server.stop();
  }
}
