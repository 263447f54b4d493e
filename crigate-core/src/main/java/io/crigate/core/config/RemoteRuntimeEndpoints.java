package io.crigate.core.config;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;

/**
 * The multi-cri style {@code --remote-runtime-endpoints name:endpoint,...} flag. Each entry becomes a
 * {@code cri} backend called {@code name} that serves the handler {@code name} and forwards it to
 * the remote runtime's default handler. Only the first {@code :} separates the name, since the
 * endpoint itself contains colons.
 */
public final class RemoteRuntimeEndpoints {

  static final String BACKEND_TYPE = "cri";
  private static final String EXAMPLE = "default:unix:///run/containerd/containerd.sock";

  private RemoteRuntimeEndpoints() {}

  public static ArrayNode parse(String flag) {
    ArrayNode backends = JsonNodeFactory.instance.arrayNode();
    for (String entry : flag.split(",")) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      int colon = trimmed.indexOf(':');
      String name = colon < 0 ? trimmed : trimmed.substring(0, colon).trim();
      String endpoint = colon < 0 ? "" : trimmed.substring(colon + 1).trim();
      if (name.isEmpty() || endpoint.isEmpty()) {
        throw new CrigateException.InvalidArgument(
            "--remote-runtime-endpoints entry '%s' is missing its %s; write name:endpoint, e.g. %s"
                .formatted(trimmed, name.isEmpty() ? "name" : "endpoint", EXAMPLE));
      }
      ObjectNode backend = backends.addObject();
      backend.put(ConfigKeys.NAME, name);
      backend.put(ConfigKeys.TYPE, BACKEND_TYPE);
      backend.putArray(ConfigKeys.HANDLERS).add(name);
      backend.put("endpoint", endpoint);
    }
    if (backends.isEmpty()) {
      throw new CrigateException.InvalidArgument(
          "--remote-runtime-endpoints is empty; give name:endpoint entries, e.g. " + EXAMPLE);
    }
    return backends;
  }
}
