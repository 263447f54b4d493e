package io.crigate.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The {@code metrics} section: off unless {@code enabled}, and then on loopback unless an address
 * is given.
 */
public record MetricsSettings(boolean enabled, InetAddress address, int port) {

  public static final int DEFAULT_PORT = 9464;
  static final List<String> KEYS = List.of("enabled", "address", "port");

  public static MetricsSettings parse(JsonNode node) {
    if (node == null || node.isMissingNode() || node.isNull()) {
      return new MetricsSettings(false, InetAddress.getLoopbackAddress(), DEFAULT_PORT);
    }
    if (!node.isObject()) {
      throw invalid("'metrics' must be a mapping with " + String.join(", ", KEYS));
    }
    node.fieldNames().forEachRemaining(key -> {
      if (!KEYS.contains(key)) {
        throw invalid("unknown metrics key '%s' (known: %s)".formatted(key, String.join(", ", KEYS)));
      }
    });
    JsonNode enabled = node.path("enabled");
    if (!enabled.isMissingNode() && !enabled.isBoolean()) {
      throw invalid("metrics.enabled must be true or false, not " + enabled);
    }
    JsonNode port = node.path("port");
    if (!port.isMissingNode() && (!port.canConvertToInt() || !PortNumber.listenable(port.asInt()))) {
      throw invalid("metrics.port must be a whole number from 0 to 65535, not " + port);
    }
    return new MetricsSettings(enabled.asBoolean(false), address(node.path("address")), port.asInt(DEFAULT_PORT));
  }

  private static InetAddress address(JsonNode node) {
    if (node.isMissingNode()) {
      return InetAddress.getLoopbackAddress();
    }
    try {
      return InetAddress.getByName(node.asText());
    } catch (UnknownHostException e) {
      throw invalid("metrics.address '%s' is not an address: %s".formatted(node.asText(), e.getMessage()));
    }
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
