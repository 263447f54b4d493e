package io.crigate.streaming;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

/**
 * The {@code streaming} section of the configuration.
 *
 * @param address where the server listens and what its URLs name; must be one the kubelet reaches
 *     (the default, loopback, is the kubelet on the same node)
 * @param port 0 picks a free port when the first session is requested
 * @param tokenTtl how long a URL stays usable if nobody connects; each URL works once
 * @param streamCreationTimeout how long a SPDY client may take to open its streams after the upgrade
 */
public record StreamingSettings(InetAddress address, int port, Duration tokenTtl, Duration streamCreationTimeout) {

  static final List<String> KEYS = List.of("address", "port", "tokenTtlSeconds", "streamCreationTimeoutSeconds");

  public static StreamingSettings defaults() {
    return new StreamingSettings(InetAddress.getLoopbackAddress(), 0, Duration.ofMinutes(1), Duration.ofSeconds(30));
  }

  /** Reads the section; a missing node gives {@link #defaults()}. Every problem names its key. */
  public static StreamingSettings parse(JsonNode node) {
    StreamingSettings defaults = defaults();
    if (node == null || node.isMissingNode() || node.isNull()) {
      return defaults;
    }
    if (!node.isObject()) {
      throw invalid("'streaming' must be a mapping with " + String.join(", ", KEYS));
    }
    node.fieldNames().forEachRemaining(key -> {
      if (!KEYS.contains(key)) {
        throw invalid("unknown streaming key '%s' (known: %s)".formatted(key, String.join(", ", KEYS)));
      }
    });
    InetAddress address = node.has("address") ? address(node.get("address").asText()) : defaults.address();
    int port = (int) number(node, "port", defaults.port(), 0, 65535);
    Duration ttl = Duration.ofSeconds(number(node, "tokenTtlSeconds", defaults.tokenTtl().toSeconds(), 1, 3600));
    Duration creation = Duration.ofSeconds(number(node, "streamCreationTimeoutSeconds",
        defaults.streamCreationTimeout().toSeconds(), 1, 600));
    return new StreamingSettings(address, port, ttl, creation);
  }

  private static InetAddress address(String text) {
    try {
      InetAddress address = InetAddress.getByName(text);
      if (address.isAnyLocalAddress()) {
        // The URL must name an address the kubelet can connect to; a wildcard names none.
        throw invalid("streaming.address %s is a wildcard: give the node address the kubelet connects to".formatted(text));
      }
      return address;
    } catch (UnknownHostException e) {
      throw invalid("streaming.address '%s' is not an address: %s".formatted(text, e.getMessage()));
    }
  }

  private static long number(JsonNode node, String key, long fallback, long min, long max) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
      throw invalid("streaming.%s must be a whole number from %d to %d, not %s".formatted(key, min, max, value));
    }
    return value.asLong();
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
