package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;

/**
 * The configuration file's shape (flags are turned into the same shape first), as Jackson binds it
 * before {@link ConfigReader} checks it; an absent key is null. The sections other parts read
 * themselves stay trees, and so do the backends, whose settings belong to their factory.
 */
record ConfigFile(
    String socket,
    String socketGroup,
    Integer maxCallsPerConnection,
    String stateDir,
    String logLevel,
    List<ObjectNode> backends,
    Dump dump,
    ObjectNode images,
    ObjectNode policy,
    ObjectNode nri,
    ObjectNode streaming,
    ObjectNode metrics,
    ObjectNode logging,
    ObjectNode hooks) {

  /** {@code rules} is one comma-separated string or a list of its entries ({@code level:regex}, {@code reset}, …). */
  record Dump(JsonNode rules, String file, String format, String redactEnv) {}

  /** The keys of a backend entry that are crigate's; every other key is a setting of its type. */
  record Backend(String name, String type, List<String> handlers, Duration callTimeout, Duration probeInterval,
      Duration probeTimeout) {

    static final List<String> KEYS = List.of(ConfigKeys.NAME, ConfigKeys.TYPE, ConfigKeys.HANDLERS,
        ConfigKeys.CALL_TIMEOUT, ConfigKeys.PROBE_INTERVAL, ConfigKeys.PROBE_TIMEOUT);
  }
}
