package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.core.HandlerBinding;
import io.crigate.core.dump.DumpFormat;
import io.crigate.core.dump.DumpRules;
import io.crigate.core.dump.DumpSettings;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.SettingsBinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Turns a merged configuration tree into a checked {@link GatewayConfig}: Jackson binds it into
 * {@link ConfigFile} (refusing unknown keys by their path), then each value is checked; every
 * problem is named.
 */
final class ConfigReader {

  /** sun_path holds 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH_BYTES = 107;
  static final Set<String> LOG_LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");
  private static final Pattern BACKEND_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private ConfigReader() {}

  static GatewayConfig read(ObjectNode root) {
    ConfigFile file = SettingsBinder.bind(root, ConfigFile.class, "");
    Path socket = socket(text(ConfigKeys.SOCKET, file.socket(), GatewayConfig.DEFAULT_SOCKET.toString()));
    Path stateDir = stateDir(file);
    String logLevel = text(ConfigKeys.LOG_LEVEL, file.logLevel(), GatewayConfig.DEFAULT_LOG_LEVEL);
    if (!LOG_LEVELS.contains(logLevel)) {
      throw invalid("unknown log level '%s' (known: trace, debug, info, warn, error, off)".formatted(logLevel));
    }
    List<BackendConfig> backends = backends(file.backends());
    DumpSettings dump = dump(file.dump());
    Optional<String> socketGroup = Optional.ofNullable(file.socketGroup()).map(group -> text(ConfigKeys.SOCKET_GROUP, group, null));
    int maxCalls = positive(ConfigKeys.MAX_CALLS_PER_CONNECTION, file.maxCallsPerConnection(),
        GatewayConfig.DEFAULT_MAX_CALLS_PER_CONNECTION);
    return new GatewayConfig(socket, stateDir, backends, dump, logLevel, section(file.images()), socketGroup, maxCalls,
        section(file.policy()), section(file.nri()), section(file.streaming()), section(file.metrics()),
        section(file.logging()), section(file.hooks()));
  }

  /** The state directory alone, the rest unjudged: for commands that act on a stopped gateway's state. */
  static Path stateDir(ObjectNode root) {
    return stateDir(SettingsBinder.bind(root, ConfigFile.class, ""));
  }

  private static Path stateDir(ConfigFile file) {
    return Path.of(text(ConfigKeys.STATE_DIR, file.stateDir(), GatewayConfig.DEFAULT_STATE_DIR.toString())).toAbsolutePath();
  }

  /** A section the composition root reads itself, or a missing node when it is absent. */
  private static JsonNode section(ObjectNode section) {
    return section == null ? MissingNode.getInstance() : section;
  }

  private static Path socket(String text) {
    Path socket = Path.of(text).toAbsolutePath();
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw invalid("socket path %s is longer than the %d bytes a unix socket address holds"
          .formatted(socket, MAX_SOCKET_PATH_BYTES));
    }
    return socket;
  }

  private static List<BackendConfig> backends(List<ObjectNode> entries) {
    if (entries == null || entries.isEmpty()) {
      throw invalid("no backends configured: give --remote-runtime-endpoints name:unix:///path or a 'backends' list in --config");
    }
    List<BackendConfig> backends = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Map<String, String> backendByHandler = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      BackendConfig backend = backend(i, entries.get(i));
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

  /** Binds crigate's keys of entry {@code index}; the rest of the entry is handed to the backend's factory. */
  private static BackendConfig backend(int index, ObjectNode node) {
    String where = "backends[%d]".formatted(index);
    if (node == null) {
      throw invalid(where + " must be a mapping with name, type and handlers");
    }
    ObjectNode settings = node.deepCopy();
    ObjectNode own = settings.objectNode();
    ConfigFile.Backend.KEYS.stream().filter(node::has).forEach(key -> own.set(key, settings.remove(key)));
    ConfigFile.Backend entry = SettingsBinder.bind(own, ConfigFile.Backend.class, where);
    String name = required(ConfigKeys.NAME, entry.name(), where);
    if (!BACKEND_NAME.matcher(name).matches()) {
      throw invalid("%s: backend name '%s' may only hold letters, digits, '.', '_' and '-' (it names a directory)"
          .formatted(where, name));
    }
    where = "backend '%s'".formatted(name);
    String type = required(ConfigKeys.TYPE, entry.type(), where);
    if (entry.handlers() == null || entry.handlers().isEmpty()) {
      throw invalid(where + " binds no handlers: add 'handlers: [name, name=remoteHandler, ...]'");
    }
    List<HandlerBinding> bindings = entry.handlers().stream().map(handler -> binding(name, handler)).toList();
    BackendTimeouts defaults = BackendTimeouts.DEFAULTS;
    BackendTimeouts timeouts = new BackendTimeouts(
        Objects.requireNonNullElse(entry.callTimeout(), defaults.callTimeout()),
        Objects.requireNonNullElse(entry.probeInterval(), defaults.probeInterval()),
        Objects.requireNonNullElse(entry.probeTimeout(), defaults.probeTimeout()));
    return new BackendConfig(name, type, bindings, settings, timeouts);
  }

  /** {@code name} forwards the empty handler (the remote's default); {@code name=remote} forwards {@code remote}. */
  private static HandlerBinding binding(String backend, String entry) {
    String text = entry == null ? "" : entry.trim();
    String[] parts = text.split("=", -1);
    if (text.isEmpty() || parts.length > 2 || parts[0].isBlank()) {
      throw invalid("backend '%s': handler entry \"%s\" is not 'name' or 'name=remoteHandler'".formatted(backend, entry));
    }
    String remote = parts.length == 2 ? parts[1].trim() : "";
    return new HandlerBinding(parts[0].trim(), backend, remote);
  }

  private static DumpSettings dump(ConfigFile.Dump dump) {
    if (dump == null) {
      return DumpSettings.off();
    }
    DumpRules rules = dumpRules(dump.rules());
    String file = text("dump." + ConfigKeys.DUMP_FILE, dump.file(), ConfigKeys.STDERR);
    Optional<Path> path = file.equals(ConfigKeys.STDERR) ? Optional.empty() : Optional.of(Path.of(file).toAbsolutePath());
    DumpFormat format = DumpFormat.parse(text("dump." + ConfigKeys.DUMP_FORMAT, dump.format(), "yaml"));
    String redact = text("dump." + ConfigKeys.DUMP_REDACT_ENV, dump.redactEnv(), DumpSettings.DEFAULT_REDACT_ENV);
    try {
      return new DumpSettings(rules, path, format, Pattern.compile(redact));
    } catch (PatternSyntaxException e) {
      throw invalid("dump redactEnv '%s' is not a valid regex: %s".formatted(redact, e.getDescription()));
    }
  }

  private static DumpRules dumpRules(JsonNode node) {
    if (node == null || node.isNull()) {
      return DumpRules.none();
    }
    if (node.isTextual()) {
      return DumpRules.parse(node.asText());
    }
    if (!node.isArray()) {
      throw invalid("dump rules must be a list of 'level:regex' (or reset, disable, enable) or one comma-separated string");
    }
    List<String> entries = new ArrayList<>();
    node.forEach(entry -> entries.add(entry.asText()));
    return DumpRules.parse(entries);
  }

  private static String required(String key, String value, String where) {
    if (value == null || value.isBlank()) {
      throw invalid("%s has no '%s'".formatted(where, key));
    }
    return value.trim();
  }

  private static String text(String key, String value, String fallback) {
    if (value == null) {
      return fallback;
    }
    if (value.isBlank()) {
      throw invalid("'%s' must be a non-empty string".formatted(key));
    }
    return value.trim();
  }

  private static int positive(String key, Integer value, int fallback) {
    if (value == null) {
      return fallback;
    }
    if (value < 1) {
      throw invalid("'%s' must be a positive whole number, not %d".formatted(key, value));
    }
    return value;
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
