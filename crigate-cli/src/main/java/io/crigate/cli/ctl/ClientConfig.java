package io.crigate.cli.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The client configuration file, in crictl's format ({@code /etc/crictl.yaml}), so one file serves
 * both tools. crigate ctl uses {@code runtime-endpoint} and {@code timeout} (seconds); crictl's other
 * keys are kept but not used. Unknown keys and values of the wrong kind are refused by name.
 */
record ClientConfig(Map<String, String> values) {

  static final String RUNTIME_ENDPOINT = "runtime-endpoint";
  static final String TIMEOUT = "timeout";
  private static final List<String> ENDPOINTS = List.of(RUNTIME_ENDPOINT, "image-endpoint");
  private static final List<String> BOOLEANS = List.of("debug", "pull-image-on-create", "disable-pull-on-run");
  private static final List<String> KEYS = List.of(RUNTIME_ENDPOINT, "image-endpoint", TIMEOUT, "debug",
      "pull-image-on-create", "disable-pull-on-run");
  private static final ObjectMapper YAML = YAMLMapper.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build();

  /** An absent file is an empty configuration. */
  static ClientConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      return new ClientConfig(Map.of());
    } catch (IOException e) {
      throw new InvalidArgument("client config %s cannot be read: %s".formatted(file, e.getMessage()));
    }
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidArgument("client config %s: %s".formatted(file, e.getOriginalMessage()));
    }
    Map<String, String> values = new LinkedHashMap<>();
    if (root != null && !root.isMissingNode() && !root.isNull()) {
      if (!root.isObject()) {
        throw new InvalidArgument("client config %s: the top level must be a mapping".formatted(file));
      }
      root.properties().forEach(entry -> values.put(entry.getKey(), entry.getValue().asText()));
    }
    values.forEach((key, value) -> check(file.toString(), key, value));
    return new ClientConfig(Map.copyOf(values));
  }

  /** Refuses what crictl would not read: an unknown key, a timeout that is no number of seconds... */
  static void check(String where, String key, String value) {
    checkKey(where, key);
    if (key.equals(TIMEOUT) && !value.matches("\\d{1,9}")) {
      throw new InvalidArgument("%s: timeout is whole seconds, e.g. 10, not '%s'".formatted(where, value));
    }
    if (BOOLEANS.contains(key) && !value.equals("true") && !value.equals("false")) {
      throw new InvalidArgument("%s: %s is true or false, not '%s'".formatted(where, key, value));
    }
    if (ENDPOINTS.contains(key) && !value.startsWith("unix://") && !value.startsWith("tcp://")) {
      throw new InvalidArgument("%s: %s must start with unix:// or tcp://, not '%s'".formatted(where, key, value));
    }
  }

  static void checkKey(String where, String key) {
    if (!KEYS.contains(key)) {
      throw new InvalidArgument("%s: unknown key '%s' (known: %s)".formatted(where, key, String.join(", ", KEYS)));
    }
  }

  Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  Optional<Duration> timeout() {
    return get(TIMEOUT).map(Long::parseLong).filter(seconds -> seconds > 0).map(Duration::ofSeconds);
  }

  ClientConfig with(String key, String value) {
    check("config --set", key, value);
    Map<String, String> changed = new LinkedHashMap<>(values);
    changed.put(key, value);
    return new ClientConfig(changed);
  }

  /** Written next to the file and moved onto it, so a reader never sees half a file. */
  void save(Path file) {
    Map<String, Object> typed = new LinkedHashMap<>();
    KEYS.stream().filter(values::containsKey).forEach(key -> typed.put(key, typed(key, values.get(key))));
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Path temporary = Files.createTempFile(parent, ".crictl", ".yaml");
      YAML.writeValue(temporary.toFile(), typed);
      Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write client config " + file, e);
    }
  }

  private static Object typed(String key, String value) {
    if (key.equals(TIMEOUT)) {
      return Long.parseLong(value);
    }
    return BOOLEANS.contains(key) ? Boolean.valueOf(value) : value;
  }

  static List<String> keys() {
    return KEYS;
  }
}
