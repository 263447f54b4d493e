package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;

import io.crigate.core.HandlerBinding;
import io.crigate.core.dump.DumpSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The whole configuration of one crigate, after file and flags are merged and checked.
 *
 * @param socket where the CRI server listens
 * @param stateDir ownership database, lock file and each backend's own directory
 * @param backends in configuration order
 * @param dump the message dump
 * @param logLevel the root log level (trace, debug, info, warn, error, off)
 * @param images the {@code images} section (layer annotations and inventory publication), read by
 *     the composition root; a missing node when the section is absent
 * @param socketGroup the group the socket is given (its mode is 0660); empty keeps crigate's own
 * @param maxCallsPerConnection how many calls one client connection may have open at once
 * @param policy the {@code policy} section (resource policy and its live configuration), read by the
 *     composition root; a missing node when the section is absent
 * @param nri the {@code nri} section (crigate as an NRI runtime hosting external plugins), read by
 *     the composition root; a missing node when the section is absent
 * @param streaming the {@code streaming} section (crigate's own CRI streaming server), read by the
 *     composition root; a missing node when the section is absent
 * @param metrics the {@code metrics} section (Prometheus endpoint, health), read by the composition
 *     root; a missing node when the section is absent
 * @param logging the {@code logging} section (per-component levels, format), read by the
 *     composition root; a missing node when the section is absent
 * @param hooks the {@code hooks} section (runtime hooks, docs/hooks.md), read by the composition
 *     root; a missing node when the section is absent
 */
public record GatewayConfig(Path socket, Path stateDir, List<BackendConfig> backends, DumpSettings dump,
    String logLevel, JsonNode images, Optional<String> socketGroup, int maxCallsPerConnection, JsonNode policy,
    JsonNode nri, JsonNode streaming, JsonNode metrics, JsonNode logging, JsonNode hooks) {

  public static final Path DEFAULT_SOCKET = Path.of("/run/crigate/crigate.sock");
  public static final Path DEFAULT_STATE_DIR = Path.of("/var/lib/crigate");
  public static final String DEFAULT_LOG_LEVEL = "info";
  /**
   * A kubelet keeps a few dozen calls open (event stream, exec and attach, one relist per pod
   * worker); far more from one connection is a client gone wrong, not a node under load.
   */
  public static final int DEFAULT_MAX_CALLS_PER_CONNECTION = 1000;

  public GatewayConfig {
    backends = List.copyOf(backends);
  }

  /** Every handler binding of every backend. */
  public List<HandlerBinding> bindings() {
    return backends.stream().flatMap(b -> b.handlers().stream()).toList();
  }

  /** Legal but probably unintended settings, for the operator's log. */
  public List<String> warnings() {
    List<String> warnings = new ArrayList<>();
    if (bindings().stream().noneMatch(b -> b.handler().equals(HandlerBinding.DEFAULT_HANDLER))) {
      warnings.add("no backend binds the '%s' handler: pods without a RuntimeClass will be rejected"
          .formatted(HandlerBinding.DEFAULT_HANDLER));
    }
    return warnings;
  }
}
