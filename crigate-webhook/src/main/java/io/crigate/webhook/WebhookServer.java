package io.crigate.webhook;

import io.crigate.spi.CrigateException;
import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code POST /mutate} over TLS: the resource-annotating admission webhook (docs/policies.md). */
public final class WebhookServer implements AutoCloseable {

  public static final String PATH = "/mutate";
  /** An AdmissionReview of a large pod is tens of kB; the API server sends at most 3 MiB objects. */
  static final long MAX_REQUEST_BYTES = 8L * 1024 * 1024;
  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);

  private final WebServer server;

  /** @param port 0 for any free port */
  public WebhookServer(String host, int port, Path certChainPem, Path privateKeyPem) {
    Keys keys = Keys.builder()
        .pem(pem -> pem.key(Resource.create(privateKeyPem)).certChain(Resource.create(certChainPem)))
        .build();
    this.server = WebServer.builder()
        .host(host)
        .port(port)
        .maxPayloadSize(MAX_REQUEST_BYTES)
        .tls(Tls.builder().privateKey(keys).privateKeyCertChain(keys).build())
        .routing(r -> r.post(PATH, WebhookServer::mutate))
        .build()
        .start();
    log.info("crigate webhook listening on https://{}:{}{}", host, server.port(), PATH);
  }

  public int port() {
    return server.port();
  }

  private static void mutate(ServerRequest request, ServerResponse response) {
    try {
      if (!request.content().hasEntity()) {
        throw new CrigateException.InvalidArgument("empty body: expected an AdmissionReview");
      }
      response.header(HeaderValues.CONTENT_TYPE_JSON).send(AdmissionReviews.answer(request.content().as(byte[].class)));
    } catch (CrigateException.InvalidArgument bad) {
      response.status(Status.BAD_REQUEST_400)
          .send(("bad admission review: " + bad.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public void close() {
    server.stop();
  }
}
