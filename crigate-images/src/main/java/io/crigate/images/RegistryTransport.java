package io.crigate.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * GETs from the distribution API with whatever authentication the registry asks for: none, Basic,
 * or a Bearer token fetched from the realm its challenge names. Tokens are kept per registry and
 * scope until shortly before they expire.
 *
 * <p>Every exchange is bounded: {@link RegistryClientConfig#timeout()} for all of it, body included,
 * and {@link #MAX_RESPONSE_BYTES} of body. Tokens and which registries want Basic are kept in
 * LRU caches, since the registries and repositories asked about are whatever pods name.
 *
 * <p>Secrets stay in request headers only: messages and logs name the registry and repository,
 * never a credential, a token or a token endpoint's answer.
 */
final class RegistryTransport {

  /** What one successful GET returned. */
  record Response(byte[] body, String contentType, Optional<String> contentDigest) {}

  private record Token(String value, Instant expires) {}

  /** Tokens without {@code expires_in} live 60 s, per the distribution token spec. */
  private static final Duration DEFAULT_TOKEN_LIFETIME = Duration.ofSeconds(60);
  private static final Duration TOKEN_EXPIRY_MARGIN = Duration.ofSeconds(5);
  private static final Base64.Encoder BASE64 = Base64.getEncoder();
  /** The distribution registry refuses manifests above 4 MiB; no manifest or token answer needs more. */
  static final long MAX_RESPONSE_BYTES = 4L * 1024 * 1024;

  private final HttpClient http;
  private final RegistryClientConfig config;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();
  private final BoundedCache<String, Token> tokens;
  private final BoundedCache<String, Boolean> basicRegistries;

  RegistryTransport(HttpClient http, RegistryClientConfig config, Clock clock) {
    this.http = http;
    this.config = config;
    this.clock = clock;
    this.tokens = new BoundedCache<>(config.cachedTokens());
    this.basicRegistries = new BoundedCache<>(config.cachedTokens());
  }

  Response get(ImageRef image, String path, String accept) {
    URI uri = URI.create(baseUrl(image.apiHost()) + "/v2/" + image.repository() + "/" + path);
    String scope = "repository:" + image.repository() + ":pull";
    HttpResponse<byte[]> response = send(image, uri, accept, authorization(image, scope));
    if (response.statusCode() == 401) {
      String header = response.headers().firstValue("WWW-Authenticate").orElse("");
      response = send(image, uri, accept, answer(image, AuthChallenge.parse(header), scope));
    }
    return check(image, path, response);
  }

  private Response check(ImageRef image, String path, HttpResponse<byte[]> response) {
    int status = response.statusCode();
    String what = "%s %s".formatted(image.name(), path);
    if (status == 200) {
      return new Response(response.body(),
          response.headers().firstValue("Content-Type").orElse(""),
          response.headers().firstValue("Docker-Content-Digest"));
    }
    if (status == 404) {
      throw new CrigateException.NotFound("registry has no %s".formatted(what));
    }
    if (status == 401 || status == 403) {
      throw new CrigateException.FailedPrecondition("registry %s refused access to %s (HTTP %d)"
          .formatted(image.registry(), image.repository(), status));
    }
    if (status == 429 || status >= 500) {
      throw new CrigateException.Unavailable("registry %s answered HTTP %d for %s".formatted(image.registry(), status, what));
    }
    throw new CrigateException.FailedPrecondition("registry %s answered HTTP %d for %s".formatted(image.registry(), status, what));
  }

  /** Credentials to send up front, when an earlier challenge told us which kind this registry wants. */
  private Optional<String> authorization(ImageRef image, String scope) {
    Token token = tokens.get(image.apiHost() + " " + scope);
    if (token != null && clock.instant().isBefore(token.expires())) {
      return Optional.of("Bearer " + token.value());
    }
    if (basicRegistries.get(image.apiHost()) != null) {
      return credentials(image).map(RegistryTransport::basic);
    }
    return Optional.empty();
  }

  private Optional<String> answer(ImageRef image, AuthChallenge challenge, String scope) {
    if (challenge.isBearer()) {
      String grantedScope = challenge.param("scope").isEmpty() ? scope : challenge.param("scope");
      Token token = fetchToken(image, challenge, grantedScope);
      tokens.put(image.apiHost() + " " + scope, token);
      return Optional.of("Bearer " + token.value());
    }
    if (challenge.isBasic()) {
      RegistryCredentials login = credentials(image).orElseThrow(() -> new CrigateException.FailedPrecondition(
          "registry %s requires a login for %s and none is configured".formatted(image.registry(), image.repository())));
      basicRegistries.put(image.apiHost(), true);
      return Optional.of(basic(login));
    }
    throw new CrigateException.FailedPrecondition("registry %s asks for unsupported authentication scheme '%s'"
        .formatted(image.registry(), challenge.scheme()));
  }

  private Token fetchToken(ImageRef image, AuthChallenge challenge, String scope) {
    StringBuilder query = new StringBuilder("scope=").append(encode(scope));
    if (!challenge.param("service").isEmpty()) {
      query.append("&service=").append(encode(challenge.param("service")));
    }
    String realm = TokenRealm.check(image, challenge.param("realm"), plainHttp(image.apiHost()), config.tokenRealms()).toString();
    URI uri = URI.create(realm + (realm.contains("?") ? "&" : "?") + query);
    HttpResponse<byte[]> response = send(image, uri, "application/json", credentials(image).map(RegistryTransport::basic));
    if (response.statusCode() != 200) {
      throw new CrigateException.FailedPrecondition("token service of registry %s refused a token for %s (HTTP %d)"
          .formatted(image.registry(), image.repository(), response.statusCode()));
    }
    try {
      JsonNode body = json.readTree(response.body());
      String value = body.path("token").asText(body.path("access_token").asText(""));
      if (value.isEmpty()) {
        throw new CrigateException.FailedPrecondition("token service of registry %s answered without a token".formatted(image.registry()));
      }
      Duration lifetime = body.has("expires_in")
          ? Duration.ofSeconds(Math.max(body.get("expires_in").asLong(), DEFAULT_TOKEN_LIFETIME.toSeconds()))
          : DEFAULT_TOKEN_LIFETIME;
      return new Token(value, clock.instant().plus(lifetime).minus(TOKEN_EXPIRY_MARGIN));
    } catch (IOException e) {
      // the body may echo secrets: report only that it was not JSON
      throw new CrigateException.FailedPrecondition("token service of registry %s answered with invalid JSON".formatted(image.registry()));
    }
  }

  private HttpResponse<byte[]> send(ImageRef image, URI uri, String accept, Optional<String> authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", accept).GET();
    authorization.ifPresent(value -> request.header("Authorization", value));
    // HttpRequest's own timeout ends with the headers on JDK 21 (JDK-8208693 extends it to the body
    // only later); a body trickled byte by byte would hold the caller, so one deadline covers all
    CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request.build(), BoundedBody.upTo(MAX_RESPONSE_BYTES));
    try {
      return exchange.get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      exchange.cancel(true);
      throw new CrigateException.Unavailable("registry %s did not answer within %d s".formatted(image.registry(), config.timeout().toSeconds()), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof BoundedBody.TooLarge) {
        throw new CrigateException.FailedPrecondition("registry %s answered %s with more than %d bytes: refusing it"
            .formatted(image.registry(), image.repository(), MAX_RESPONSE_BYTES));
      }
      throw new CrigateException.Unavailable("registry %s unreachable: %s".formatted(image.registry(), e.getCause().getClass().getSimpleName()), e.getCause());
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while asking registry " + image.registry(), e);
    }
  }

  private String baseUrl(String host) {
    return (plainHttp(host) ? "http://" : "https://") + host;
  }

  /** Loopback registries and those configured insecure are spoken to without TLS. */
  boolean plainHttp(String host) {
    String bare = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.replaceFirst(":[0-9]+$", "");
    return config.insecureRegistries().contains(host)
        || config.insecureRegistries().contains(bare)
        || bare.equals("localhost") || bare.equals("127.0.0.1") || bare.equals("[::1]");
  }

  private Optional<RegistryCredentials> credentials(ImageRef image) {
    return Optional.ofNullable(config.credentials().get(image.registry()));
  }

  private static String basic(RegistryCredentials login) {
    return "Basic " + BASE64.encodeToString((login.username() + ":" + login.password()).getBytes(StandardCharsets.UTF_8));
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
