package io.crigate.backend.cri;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cri backend's configuration.
 *
 * @param socket the remote runtime's unix socket
 * @param connectTimeout how long one connection attempt may take before calls fail UNAVAILABLE
 */
record RemoteCriSettings(Path socket, Duration connectTimeout) {

  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Set<String> KNOWN = Set.of("endpoint", "connectTimeout");
  private static final String UNIX_SCHEME = "unix://";
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m)");

  /** Reads {@code endpoint} ({@code unix:///path} or a bare absolute path) and optional {@code connectTimeout}. */
  static RemoteCriSettings parse(String backend, JsonNode settings) {
    if (settings == null || !settings.isObject()) {
      throw invalid(backend, "settings must be an object with an endpoint, e.g. {\"endpoint\": \"unix:///run/containerd/containerd.sock\"}");
    }
    settings.fieldNames().forEachRemaining(field -> {
      if (!KNOWN.contains(field)) {
        throw invalid(backend, "unknown setting '%s' (known: endpoint, connectTimeout)".formatted(field));
      }
    });
    Path socket = socket(backend, settings.path("endpoint"));
    JsonNode timeout = settings.path("connectTimeout");
    Duration connectTimeout = timeout.isMissingNode() ? DEFAULT_CONNECT_TIMEOUT : duration(backend, timeout);
    return new RemoteCriSettings(socket, connectTimeout);
  }

  /** The endpoint as the kubelet's {@code --container-runtime-endpoint} would write it. */
  String endpoint() {
    return UNIX_SCHEME + socket;
  }

  private static Path socket(String backend, JsonNode endpoint) {
    if (!endpoint.isTextual() || endpoint.asText().isBlank()) {
      throw invalid(backend, "setting 'endpoint' is required: unix:///path/to/cri.sock or /path/to/cri.sock");
    }
    String text = endpoint.asText();
    String path = text.startsWith(UNIX_SCHEME) ? text.substring(UNIX_SCHEME.length()) : text;
    if (!path.startsWith("/")) {
      throw invalid(backend, "endpoint '%s' is not a unix socket: use unix:///absolute/path or /absolute/path".formatted(text));
    }
    return Path.of(path);
  }

  /** Accepts {@code 500ms}, {@code 5s}, {@code 1m} or ISO-8601 ({@code PT5S}); must be positive. */
  private static Duration duration(String backend, JsonNode value) {
    String text = value.asText();
    Duration parsed = parseDuration(text);
    if (parsed == null || parsed.isZero() || parsed.isNegative()) {
      throw invalid(backend, "connectTimeout '%s' is not a positive duration such as 500ms, 5s or PT5S".formatted(text));
    }
    return parsed;
  }

  private static Duration parseDuration(String text) {
    Matcher shortForm = SHORT_DURATION.matcher(text);
    if (shortForm.matches()) {
      long amount = Long.parseLong(shortForm.group(1));
      return switch (shortForm.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        default -> Duration.ofMinutes(amount);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static CrigateException.InvalidArgument invalid(String backend, String problem) {
    return new CrigateException.InvalidArgument("backend %s (type cri): %s".formatted(backend, problem));
  }
}
