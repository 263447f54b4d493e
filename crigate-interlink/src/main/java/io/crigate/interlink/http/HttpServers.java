package io.crigate.interlink.http;

import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.NotFound;
import io.crigate.interlink.wire.PluginCallFailed;
import io.crigate.interlink.wire.WireJson;
import io.crigate.spi.CrigateException;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.UnauthorizedResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.function.Consumer;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Javalin (Jetty 12) server on TCP, TLS or a unix socket, on virtual threads, with the
 * error mapping every interLink endpoint shares: a bad body is 400 naming the field, an unknown pod
 * 404, a backend outage 503, a remote plugin's status passed on; nothing else becomes a bare 500.
 */
public final class HttpServers {

  private static final Logger LOG = LoggerFactory.getLogger(HttpServers.class);

  private HttpServers() {}

  /** Registers one handler for every method: interLink's Go mux does not check methods either. */
  public static void anyMethod(JavalinConfig config, String path, io.javalin.http.Handler handler) {
    for (HandlerType type : new HandlerType[] {HandlerType.GET, HandlerType.POST, HandlerType.PUT, HandlerType.DELETE}) {
      config.routes.addHttpHandler(type, path, handler);
    }
  }

  /** Answers {@code value} as JSON in the wire's encoding. */
  public static void json(Context ctx, Object value) {
    ctx.contentType("application/json").result(WireJson.write(value));
  }

  public static RunningServer start(HttpEndpoint endpoint, Consumer<JavalinConfig> routes) {
    BearerToken token = endpoint.tokenFile() == null ? null : new BearerToken(endpoint.tokenFile());
    Javalin app = Javalin.create(config -> {
      config.concurrency.useVirtualThreads = true;
      config.startup.showJavalinBanner = false;
      config.http.maxRequestSize = 64L * 1024 * 1024;
      config.jetty.addConnector((server, http) -> {
        if (endpoint.unix()) {
          UnixDomainServerConnector unix = new UnixDomainServerConnector(server, new HttpConnectionFactory(http));
          unix.setUnixDomainPath(endpoint.socketPath());
          return unix;
        }
        ServerConnector tcp;
        if (endpoint.tls()) {
          SslContextFactory.Server ssl = new SslContextFactory.Server();
          ssl.setKeyStore(PemKeyStore.load(endpoint.tlsCert(), endpoint.tlsKey()));
          ssl.setKeyStorePassword(new String(PemKeyStore.PASSWORD));
          http.addCustomizer(new SecureRequestCustomizer(false));
          tcp = new ServerConnector(server, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(http));
        } else {
          tcp = new ServerConnector(server, new HttpConnectionFactory(http));
        }
        tcp.setHost(endpoint.host());
        tcp.setPort(endpoint.port());
        return tcp;
      });
      if (token != null) {
        config.routes.before(ctx -> {
          if (!token.accepts(ctx.header("Authorization"))) {
            throw new UnauthorizedResponse("a valid bearer token is required");
          }
        });
      }
      config.routes.exception(BadRequest.class, (e, ctx) -> error(ctx, 400, e.getMessage(), e.field()));
      config.routes.exception(NotFound.class, (e, ctx) -> error(ctx, 404, e.getMessage(), null));
      config.routes.exception(PluginCallFailed.class, (e, ctx) -> ctx.status(e.status()).result(e.getMessage()));
      config.routes.exception(CrigateException.class, (e, ctx) -> error(ctx, status(e), e.getMessage(), null));
      config.routes.exception(Exception.class, (e, ctx) -> {
        LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
        error(ctx, 500, e.getClass().getSimpleName() + ": " + e.getMessage(), null);
      });
      routes.accept(config);
    });
    if (endpoint.unix()) {
      try {
        Files.createDirectories(endpoint.socketPath().toAbsolutePath().getParent());
        Files.deleteIfExists(endpoint.socketPath());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot prepare socket " + endpoint.socketPath(), e);
      }
    }
    app.start();
    if (endpoint.unix()) {
      return new RunningServer(app, endpoint.address());
    }
    int port = ((ServerConnector) app.jettyServer().server().getConnectors()[0]).getLocalPort();
    return new RunningServer(app, (endpoint.tls() ? "https://" : "http://") + endpoint.host() + ":" + port);
  }

  private static int status(CrigateException e) {
    return switch (e) {
      case CrigateException.InvalidArgument i -> 400;
      case CrigateException.NotFound n -> 404;
      case CrigateException.AlreadyExists a -> 409;
      case CrigateException.FailedPrecondition f -> 409;
      case CrigateException.PermissionDenied p -> 403;
      case CrigateException.Unavailable u -> 503;
      case CrigateException.Unimplemented u -> 501;
    };
  }

  private static void error(Context ctx, int status, String message, String field) {
    ctx.status(status).contentType("application/json")
        .result(WireJson.write(field == null ? Map.of("message", message) : Map.of("field", field, "message", message)));
  }
}
