package io.crigate.core.dump;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes secrets from a CRI message before it is dumped. Protobuf messages are immutable, so the
 * result is always a new message (or the same one when nothing needed hiding) and the message that
 * is forwarded to the backend keeps its secrets.
 *
 * <p>Walks the whole message tree, so a secret is hidden wherever it appears:
 * <ul>
 *   <li>every field of every {@code AuthConfig} (registry credentials);
 *   <li>the value of every {@code KeyValue} (container environment) whose key matches the pattern;
 *   <li>{@code NAME=value} pairs inside verbose {@code info} maps (status responses embed the OCI
 *       spec, environment included) whose name matches the pattern.
 * </ul>
 */
final class SecretRedactor {

  static final String REDACTED = "<redacted>";

  /** An environment entry as the OCI spec writes it inside JSON: {@code "NAME=value"}. */
  private static final Pattern ENV_IN_JSON = Pattern.compile("\"([A-Za-z_][A-Za-z0-9_.]*)=((?:[^\"\\\\]|\\\\.)*)\"");

  private final Pattern envKey;

  SecretRedactor(Pattern envKey) {
    this.envKey = envKey;
  }

  Message redact(Message message) {
    Message.Builder copy = null;
    for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      Object redacted = field.isRepeated()
          ? redactEach(field, (List<?>) entry.getValue())
          : redactValue(field, (Message) entry.getValue());
      if (redacted != entry.getValue()) {
        copy = copy == null ? message.toBuilder() : copy;
        copy.setField(field, redacted);
      }
    }
    return copy == null ? message : copy.build();
  }

  private List<?> redactEach(FieldDescriptor field, List<?> values) {
    List<Object> copy = null;
    for (int i = 0; i < values.size(); i++) {
      Message value = (Message) values.get(i);
      Message redacted = redactValue(field, value);
      if (redacted != value) {
        copy = copy == null ? new ArrayList<>(values) : copy;
        copy.set(i, redacted);
      }
    }
    return copy == null ? values : copy;
  }

  private Message redactValue(FieldDescriptor field, Message value) {
    Descriptor type = value.getDescriptorForType();
    if (type == AuthConfig.getDescriptor()) {
      return redactAuth(value);
    }
    if (type == KeyValue.getDescriptor()) {
      return redactEnv((KeyValue) value);
    }
    if (type.getOptions().getMapEntry() && field.getName().equals("info")) {
      return redactInfoEntry(value);
    }
    return redact(value);
  }

  private static Message redactAuth(Message auth) {
    Message.Builder copy = auth.toBuilder();
    auth.getAllFields().keySet().forEach(f -> copy.setField(f, REDACTED));
    return copy.build();
  }

  private KeyValue redactEnv(KeyValue env) {
    if (!envKey.matcher(env.getKey()).find()) {
      return env;
    }
    return env.toBuilder().setValue(ByteString.copyFromUtf8(REDACTED)).build();
  }

  private Message redactInfoEntry(Message entry) {
    FieldDescriptor valueField = entry.getDescriptorForType().findFieldByName("value");
    String text = (String) entry.getField(valueField);
    String redacted = redactEnvPairs(text);
    return redacted.equals(text) ? entry : entry.toBuilder().setField(valueField, redacted).build();
  }

  String redactEnvPairs(String text) {
    Matcher m = ENV_IN_JSON.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      String replacement = envKey.matcher(m.group(1)).find() ? "\"" + m.group(1) + "=" + REDACTED + "\"" : m.group();
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }
}
