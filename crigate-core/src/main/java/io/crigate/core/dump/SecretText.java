package io.crigate.core.dump;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Hides secrets inside the strings of a CRI message, by structure: {@code NAME=value} and
 * {@code --flag=value} words, a {@code --password value} pair in an argv, and JSON (verbose info,
 * annotations such as kubectl's last-applied-configuration) parsed and walked rather than matched
 * with a regex. Every scan is linear: a 5000-character value once overflowed the old regex's stack.
 */
final class SecretText {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** Characters that end a value inside running text. */
  private static final String VALUE_END = " \t\r\n\"',;&|`)";

  private final Predicate<String> secretName;

  SecretText(Predicate<String> secretName) {
    this.secretName = secretName;
  }

  /** Free text or a single word: every {@code NAME=value} and {@code --flag value} whose name looks secret. */
  String text(String text) {
    if (text.indexOf('=') < 0 && text.indexOf('-') < 0) {
      return text;
    }
    StringBuilder out = null;
    int copied = 0;
    int i = 0;
    while (i < text.length()) {
      int nameStart = i;
      while (i < text.length() && nameChar(text.charAt(i))) {
        i++;
      }
      String word = text.substring(nameStart, i);
      int valueStart = -1;
      if (i < text.length() && text.charAt(i) == '=' && secret(word)) {
        valueStart = i + 1;
      } else if (i == text.length() || Character.isWhitespace(text.charAt(i))) {
        if (word.startsWith("-") && secret(word)) {
          valueStart = skipSpaces(text, i);
        }
      }
      if (valueStart >= 0) {
        int valueEnd = valueEnd(text, valueStart);
        if (valueEnd > valueStart) {
          out = out == null ? new StringBuilder(text.length()) : out;
          out.append(text, copied, valueStart).append(SecretRedactor.REDACTED);
          copied = valueEnd;
        }
        i = Math.max(i + 1, valueEnd);
      } else {
        i = Math.max(i + 1, nameStart + 1);
      }
    }
    return out == null ? text : out.append(text, copied, text.length()).toString();
  }

  /**
   * One argv word or JSON string: {@code NAME=anything} or {@code --flag=anything} with a secret
   * name loses everything after the '='; any other word is read as text (an {@code sh -c} script).
   */
  String word(String word) {
    int eq = word.indexOf('=');
    if (eq > 0 && word.chars().limit(eq).allMatch(c -> nameChar((char) c)) && secret(word.substring(0, eq))) {
      String redacted = word.substring(0, eq + 1) + SecretRedactor.REDACTED;
      return redacted.equals(word) ? word : redacted;
    }
    return text(word);
  }

  /** An argv: besides each word's own {@code NAME=value}, the word after a secret-named flag. */
  List<String> argv(List<String> words) {
    List<String> out = null;
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      boolean flagValue = i > 0 && isSecretFlag(words.get(i - 1));
      String redacted = flagValue ? SecretRedactor.REDACTED : word(word);
      if (!redacted.equals(word)) {
        out = out == null ? new ArrayList<>(words) : out;
        out.set(i, redacted);
      }
    }
    return out == null ? words : out;
  }

  /** A value that may be JSON (verbose info, some annotations); anything else is treated as text. */
  String jsonOrText(String value) {
    String trimmed = value.strip();
    if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) {
      return word(value);
    }
    try {
      JsonNode tree = JSON.readTree(value);
      return json(tree) ? JSON.writeValueAsString(tree) : value;
    } catch (JsonProcessingException e) {
      return text(value);
    }
  }

  /** Redacts in place; whether anything changed. */
  private boolean json(JsonNode node) {
    boolean changed = false;
    if (node instanceof ObjectNode object) {
      changed = keyValuePair(object);
      for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
        Map.Entry<String, JsonNode> field = fields.next();
        if (!isNameField(field.getKey()) && secret(field.getKey()) && !field.getValue().isNull()
            && !(field.getValue().isTextual() && field.getValue().asText().equals(SecretRedactor.REDACTED))) {
          field.setValue(TextNode.valueOf(SecretRedactor.REDACTED));
          changed = true;
        } else {
          changed |= child(field.getValue(), field::setValue);
        }
      }
    } else if (node instanceof ArrayNode array) {
      List<String> strings = new ArrayList<>();
      array.forEach(element -> strings.add(element.isTextual() ? element.asText() : null));
      for (int i = 0; i < array.size(); i++) {
        boolean flagValue = i > 0 && strings.get(i - 1) != null && isSecretFlag(strings.get(i - 1));
        int index = i;
        if (flagValue && array.get(i).isValueNode()) {
          array.set(i, TextNode.valueOf(SecretRedactor.REDACTED));
          changed = true;
        } else {
          changed |= child(array.get(i), replacement -> array.set(index, replacement));
        }
      }
    }
    return changed;
  }

  private boolean child(JsonNode value, java.util.function.Consumer<JsonNode> replace) {
    if (value.isTextual()) {
      String redacted = jsonOrText(value.asText());
      if (!redacted.equals(value.asText())) {
        replace.accept(TextNode.valueOf(redacted));
        return true;
      }
      return false;
    }
    return json(value);
  }

  /** {"key": "DB_PASSWORD", "value": "..."} and {"name": ..., "value": ...}: containerd's config.envs, k8s env. */
  private boolean keyValuePair(ObjectNode object) {
    JsonNode name = object.has("key") ? object.get("key") : object.get("name");
    JsonNode value = object.get("value");
    if (name == null || !name.isTextual() || value == null || !secret(name.asText()) || !value.isValueNode()) {
      return false;
    }
    object.put("value", SecretRedactor.REDACTED);
    return true;
  }

  private boolean isSecretFlag(String word) {
    return word.startsWith("-") && word.indexOf('=') < 0 && secret(word);
  }

  private boolean secret(String name) {
    return !name.isEmpty() && secretName.test(name);
  }

  /** Field names that hold a name, not a value: {"key": "PATH"} must not be read as a secret called key. */
  private static boolean isNameField(String field) {
    return field.equals("key") || field.equals("name");
  }

  private static boolean nameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.';
  }

  private static int skipSpaces(String text, int from) {
    int i = from;
    while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /** A quoted value runs to its closing quote (or the end); a bare one to the next separator. */
  private static int valueEnd(String text, int from) {
    if (from < text.length() && (text.charAt(from) == '\'' || text.charAt(from) == '"')) {
      int close = text.indexOf(text.charAt(from), from + 1);
      return close < 0 ? text.length() : close + 1;
    }
    int i = from;
    while (i < text.length() && VALUE_END.indexOf(text.charAt(i)) < 0) {
      i++;
    }
    return i;
  }
}
