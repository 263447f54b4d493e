package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.util.regex.Pattern;

/** Reads typed fields from a hook's settings; every error names the full path of the field. */
final class SettingsFields {

  private static final Pattern CPU_LIST = Pattern.compile("^$|^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$");

  private SettingsFields() {}

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
