package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.core.HandlerBinding;
import io.crigate.core.dump.DumpFormat;
import io.crigate.core.dump.DumpRule;
import io.crigate.core.dump.DumpRules;
import io.crigate.core.dump.DumpSettings;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Turns a merged configuration tree into a checked {@link GatewayConfig}; every problem is named. */
final class ConfigReader {

  /** sun_path holds 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH_BYTES = 107;
  static final Set<String> LOG_LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");
  private static final Pattern BACKEND_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private ConfigReader() {}

  static GatewayConfig read(ObjectNode root) {
    rejectUnknown(root, ConfigKeys.TOP_LEVEL, "top-level");
    Path socket = socket(text(root, ConfigKeys.SOCKET, GatewayConfig.DEFAULT_SOCKET.toString()));
    Path stateDir = Path.of(text(root, ConfigKeys.STATE_DIR, GatewayConfig.DEFAULT_STATE_DIR.toString())).toAbsolutePath();
    String logLevel = text(root, ConfigKeys.LOG_LEVEL, GatewayConfig.DEFAULT_LOG_LEVEL);
    if (!LOG_LEVELS.contains(logLevel)) {
      throw invalid("unknown log level '%s' (known: trace, debug, info, warn, error, off)".formatted(logLevel));
    }
    List<BackendConfig> backends = backends(root.path(ConfigKeys.BACKENDS));
    DumpSettings dump = dump(root.path(ConfigKeys.DUMP));
    JsonNode images = section(root, ConfigKeys.IMAGES);
    JsonNode streaming = section(root, ConfigKeys.STREAMING);
    JsonNode metrics = section(root, ConfigKeys.METRICS);
    Optional<String> socketGroup = Optional.ofNullable(text(root, ConfigKeys.SOCKET_GROUP, null));
    int maxCalls = positiveInt(root, ConfigKeys.MAX_CALLS_PER_CONNECTION, GatewayConfig.DEFAULT_MAX_CALLS_PER_CONNECTION);
    JsonNode logging = section(root, ConfigKeys.LOGGING);
    return new GatewayConfig(socket, stateDir, backends, dump, logLevel, images, socketGroup, maxCalls,
        section(root, ConfigKeys.POLICY), section(root, ConfigKeys.NRI), streaming, metrics, logging,
        section(root, ConfigKeys.HOOKS));
  }

  /** A section the composition root reads itself: only its shape is checked here. */
  private static JsonNode section(ObjectNode root, String key) {
    JsonNode section = root.path(key);
    if (!section.isMissingNode() && !section.isObject()) {
      throw invalid("'%s' must be a mapping".formatted(key));
    }
    return section;
  }

  private static Path socket(String text) {
    Path socket = Path.of(text).toAbsolutePath();
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw invalid("socket path %s is longer than the %d bytes a unix socket address holds"
          .formatted(socket, MAX_SOCKET_PATH_BYTES));
    }
    return socket;
  }

  private static List<BackendConfig> backends(JsonNode node) {
    if (node.isMissingNode() || node.isNull() || (node.isArray() && node.isEmpty())) {
      throw invalid("no backends configured: give --remote-runtime-endpoints name:unix:///path or a 'backends' list in --config");
    }
    if (!node.isArray()) {
      throw invalid("'backends' must be a list of {name, type, handlers, ...settings}");
    }
    List<BackendConfig> backends = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Map<String, String> backendByHandler = new HashMap<>();
    for (int i = 0; i < node.size(); i++) {
      BackendConfig backend = backend(i, node.get(i));
      if (!names.add(backend.name())) {
        throw invalid("backend name '%s' is used twice".formatted(backend.name()));
      }
      for (HandlerBinding binding : backend.handlers()) {
        String previous = backendByHandler.putIfAbsent(binding.handler(), backend.name());
        if (previous != null) {
          throw invalid("handler '%s' is bound twice: by backend '%s' and by backend '%s'"
              .formatted(binding.handler(), previous, backend.name()));
        }
      }
      backends.add(backend);
    }
    return backends;
  }

  private static BackendConfig backend(int index, JsonNode node) {
    String where = "backends[%d]".formatted(index);
    if (!node.isObject()) {
      throw invalid(where + " must be a mapping with name, type and handlers");
    }
    String name = required(node, ConfigKeys.NAME, where);
    if (!BACKEND_NAME.matcher(name).matches()) {
      throw invalid("%s: backend name '%s' may only hold letters, digits, '.', '_' and '-' (it names a directory)"
          .formatted(where, name));
    }
    where = "backend '%s'".formatted(name);
    String type = required(node, ConfigKeys.TYPE, where);
    JsonNode handlers = node.path(ConfigKeys.HANDLERS);
    if (!handlers.isArray() || handlers.isEmpty()) {
      throw invalid(where + " binds no handlers: add 'handlers: [name, name=remoteHandler, ...]'");
    }
    List<HandlerBinding> bindings = new ArrayList<>();
    for (JsonNode handler : handlers) {
      bindings.add(binding(name, handler));
    }
    ObjectNode settings = ((ObjectNode) node).deepCopy();
    settings.remove(List.of(ConfigKeys.NAME, ConfigKeys.TYPE, ConfigKeys.HANDLERS,
        ConfigKeys.CALL_TIMEOUT, ConfigKeys.PROBE_INTERVAL, ConfigKeys.PROBE_TIMEOUT));
    BackendTimeouts defaults = BackendTimeouts.DEFAULTS;
    BackendTimeouts timeouts = new BackendTimeouts(
        duration(node, ConfigKeys.CALL_TIMEOUT, where, defaults.callTimeout()),
        duration(node, ConfigKeys.PROBE_INTERVAL, where, defaults.probeInterval()),
        duration(node, ConfigKeys.PROBE_TIMEOUT, where, defaults.probeTimeout()));
    return new BackendConfig(name, type, bindings, settings, timeouts);
  }

  private static Duration duration(JsonNode node, String key, String where, Duration fallback) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return fallback;
    }
    try {
      return Durations.positive(key, value.asText());
    } catch (CrigateException.InvalidArgument e) {
      throw invalid(where + ": " + e.getMessage());
    }
  }

  /** {@code name} forwards the empty handler (the remote's default); {@code name=remote} forwards {@code remote}. */
  private static HandlerBinding binding(String backend, JsonNode entry) {
    String text = entry.isTextual() ? entry.asText().trim() : "";
    String[] parts = text.split("=", -1);
    if (text.isEmpty() || parts.length > 2 || parts[0].isBlank()) {
      throw invalid("backend '%s': handler entry %s is not 'name' or 'name=remoteHandler'".formatted(backend, entry));
    }
    String remote = parts.length == 2 ? parts[1].trim() : "";
    return new HandlerBinding(parts[0].trim(), backend, remote);
  }

  private static DumpSettings dump(JsonNode node) {
    DumpSettings defaults = DumpSettings.off();
    if (node.isMissingNode() || node.isNull()) {
      return defaults;
    }
    if (!node.isObject()) {
      throw invalid("'dump' must be a mapping with rules, file, format, redactEnv");
    }
    rejectUnknown((ObjectNode) node, ConfigKeys.DUMP_KEYS, "dump");
    DumpRules rules = dumpRules(node.path(ConfigKeys.DUMP_RULES));
    String file = text(node, ConfigKeys.DUMP_FILE, ConfigKeys.STDERR);
    Optional<Path> path = file.equals(ConfigKeys.STDERR) ? Optional.empty() : Optional.of(Path.of(file).toAbsolutePath());
    DumpFormat format = DumpFormat.parse(text(node, ConfigKeys.DUMP_FORMAT, "yaml"));
    String redact = text(node, ConfigKeys.DUMP_REDACT_ENV, DumpSettings.DEFAULT_REDACT_ENV);
    try {
      return new DumpSettings(rules, path, format, Pattern.compile(redact));
    } catch (PatternSyntaxException e) {
      throw invalid("dump redactEnv '%s' is not a valid regex: %s".formatted(redact, e.getDescription()));
    }
  }

  private static DumpRules dumpRules(JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return DumpRules.none();
    }
    if (node.isTextual()) {
      return DumpRules.parse(node.asText());
    }
    if (!node.isArray()) {
      throw invalid("dump rules must be a list of 'level:regex' or one comma-separated string");
    }
    List<DumpRule> rules = new ArrayList<>();
    node.forEach(rule -> rules.add(DumpRule.parse(rule.asText())));
    return new DumpRules(rules);
  }

  private static String required(JsonNode node, String key, String where) {
    JsonNode value = node.path(key);
    if (!value.isTextual() || value.asText().isBlank()) {
      throw invalid("%s has no '%s'".formatted(where, key));
    }
    return value.asText().trim();
  }

  private static String text(JsonNode node, String key, String fallback) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return fallback;
    }
    if (!value.isValueNode() || value.asText().isBlank()) {
      throw invalid("'%s' must be a non-empty string".formatted(key));
    }
    return value.asText().trim();
  }

  private static int positiveInt(JsonNode node, String key, int fallback) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return fallback;
    }
    if (!value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 1) {
      throw invalid("'%s' must be a positive whole number, not %s".formatted(key, value));
    }
    return value.intValue();
  }

  private static void rejectUnknown(ObjectNode node, List<String> known, String where) {
    node.fieldNames().forEachRemaining(key -> {
      if (!known.contains(key)) {
        throw invalid("unknown %s key '%s' (known: %s)".formatted(where, key, String.join(", ", known)));
      }
    });
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
