package io.crigate.backend.cri;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.SettingsBinder;
import io.crigate.transport.UnixSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * A cri backend's configuration.
 *
 * @param socket the remote runtime's unix socket
 * @param connectTimeout how long one connection attempt may take before calls fail UNAVAILABLE
 */
record RemoteCriSettings(Path socket, Duration connectTimeout) {

  static final Duration DEFAULT_CONNECT_TIMEOUT = UnixSocketChannel.DEFAULT_CONNECT_TIMEOUT;

  /** The settings as written, bound by {@link SettingsBinder}; {@link #parse} checks them. */
  record Written(String endpoint, Duration connectTimeout) {}

  /**
   * Reads {@code endpoint} ({@code unix:///path} or a bare absolute path) and optional {@code connectTimeout}.
   * Keys are named as {@code backends.NAME.key} in errors.
   */
  static RemoteCriSettings parse(String backend, JsonNode settings) {
    if (settings == null || !settings.isObject()) {
      throw invalid(backend, "settings must be an object with an endpoint, e.g. {\"endpoint\": \"unix:///run/containerd/containerd.sock\"}");
    }
    Written written = SettingsBinder.bind(settings, Written.class, "backends." + backend);
    if (written.endpoint() == null || written.endpoint().isBlank()) {
      throw invalid(backend, "setting 'endpoint' is required: unix:///path/to/cri.sock or /path/to/cri.sock");
    }
    Path socket;
    try {
      socket = UnixSocketChannel.socketPath(written.endpoint());
    } catch (IllegalArgumentException e) {
      throw invalid(backend, e.getMessage());
    }
    return new RemoteCriSettings(socket, Objects.requireNonNullElse(written.connectTimeout(), DEFAULT_CONNECT_TIMEOUT));
  }

  /** The endpoint as the kubelet's {@code --container-runtime-endpoint} would write it. */
  String endpoint() {
    return UnixSocketChannel.endpoint(socket);
  }

  private static CrigateException.InvalidArgument invalid(String backend, String problem) {
    return new CrigateException.InvalidArgument("backend %s (type cri): %s".formatted(backend, problem));
  }
}
