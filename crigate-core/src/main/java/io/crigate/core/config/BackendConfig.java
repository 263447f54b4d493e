package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.core.HandlerBinding;
import java.util.List;

/**
 * One configured backend.
 *
 * @param name unique among backends; also names its state directory
 * @param type selects the factory ({@code cri}, ...)
 * @param handlers the RuntimeClass handlers it serves, each with the handler forwarded to it
 * @param settings every other key of the backend's entry, handed to the factory unread; may hold secrets
 * @param timeouts how long crigate waits for it ({@code callTimeout}, {@code probeInterval}, {@code probeTimeout})
 */
public record BackendConfig(String name, String type, List<HandlerBinding> handlers, JsonNode settings,
    BackendTimeouts timeouts) {

  public BackendConfig {
    handlers = List.copyOf(handlers);
  }

  @Override
  public String toString() {
    // settings may carry credentials; keep them out of logs and exception messages
    return "BackendConfig[name=%s, type=%s, handlers=%s, timeouts=%s]".formatted(name, type, handlers, timeouts);
  }
}
