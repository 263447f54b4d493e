package io.crigate.backend.cri;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import io.crigate.transport.UnixSocketChannel;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A cri backend's configuration.
 *
 * @param socket the remote runtime's unix socket
 * @param connectTimeout how long one connection attempt may take before calls fail UNAVAILABLE
 */
record RemoteCriSettings(Path socket, Duration connectTimeout) {

  static final Duration DEFAULT_CONNECT_TIMEOUT = UnixSocketChannel.DEFAULT_CONNECT_TIMEOUT;
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** The settings as written: Jackson binds them, {@link #parse} checks them. */
  record Written(String endpoint, String connectTimeout) {}

  /** Reads {@code endpoint} ({@code unix:///path} or a bare absolute path) and optional {@code connectTimeout}. */
  static RemoteCriSettings parse(String backend, JsonNode settings) {
    if (settings == null || !settings.isObject()) {
      throw invalid(backend, "settings must be an object with an endpoint, e.g. {\"endpoint\": \"unix:///run/containerd/containerd.sock\"}");
    }
    Written written = bind(backend, settings);
    if (written.endpoint() == null || written.endpoint().isBlank() || !settings.path("endpoint").isTextual()) {
      throw invalid(backend, "setting 'endpoint' is required: unix:///path/to/cri.sock or /path/to/cri.sock");
    }
    Path socket;
    try {
      socket = UnixSocketChannel.socketPath(written.endpoint());
    } catch (IllegalArgumentException e) {
      throw invalid(backend, e.getMessage());
    }
    Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    if (written.connectTimeout() != null) {
      try {
        connectTimeout = Durations.positive("connectTimeout", written.connectTimeout());
      } catch (CrigateException.InvalidArgument e) {
        throw invalid(backend, e.getMessage());
      }
    }
    return new RemoteCriSettings(socket, connectTimeout);
  }

  /** The endpoint as the kubelet's {@code --container-runtime-endpoint} would write it. */
  String endpoint() {
    return UnixSocketChannel.endpoint(socket);
  }

  private static Written bind(String backend, JsonNode settings) {
    try {
      return JSON.treeToValue(settings, Written.class);
    } catch (UnrecognizedPropertyException e) {
      throw invalid(backend, "unknown setting '%s' (known: endpoint, connectTimeout)".formatted(e.getPropertyName()));
    } catch (JsonProcessingException e) {
      throw invalid(backend, "settings are not {endpoint, connectTimeout} strings: " + e.getOriginalMessage());
    }
  }

  private static CrigateException.InvalidArgument invalid(String backend, String problem) {
    return new CrigateException.InvalidArgument("backend %s (type cri): %s".formatted(backend, problem));
  }
}
