package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads typed fields from a hook's settings; every error names the full path of the field. */
final class SettingsFields {

  private static final Pattern CPU_LIST = Pattern.compile("^$|^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$");

  private SettingsFields() {}

  /**
   * Refuses a section that is not a mapping or has a key outside {@code known}, naming the key's
   * path and what the section is (e.g. {@code hook GPUEnvInject}).
   */
  static void requireKeys(JsonNode node, Set<String> known, String path, String what) {
    if (!node.isObject()) {
      throw new CrigateException.InvalidArgument("%s must be a mapping, got %s".formatted(path, node));
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!known.contains(key)) {
        throw new CrigateException.InvalidArgument("%s.%s is not a setting of %s; its settings are %s"
            .formatted(path, key, what, known));
      }
    }
  }

  static long longIn(JsonNode node, String field, long min, long max, String path) {
    JsonNode value = node.get(field);
    if (value == null || !value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
      throw new CrigateException.InvalidArgument("%s.%s must be a whole number in [%d, %d], got %s"
          .formatted(path, field, min, max, value));
    }
    return value.asLong();
  }

  static String cpuList(JsonNode node, String field, String path) {
    String value = node.path(field).asText("");
    if (!isCpuList(value)) {
      throw new CrigateException.InvalidArgument("%s.%s must be a Linux CPU list like 0-3,6, got '%s'"
          .formatted(path, field, value));
    }
    return value;
  }

  static boolean isCpuList(String value) {
    return CPU_LIST.matcher(value).matches();
  }
}
