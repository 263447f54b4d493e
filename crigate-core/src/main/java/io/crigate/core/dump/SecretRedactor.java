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
import java.util.regex.Pattern;

/**
 * Removes secrets from a CRI message before it is dumped. Protobuf messages are immutable, so the
 * result is always a new message (or the same one when nothing needed hiding) and the message that
 * is forwarded to the backend keeps its secrets.
 *
 * <p>Walks the whole message tree and redacts by structure, so a secret is hidden wherever it
 * appears:
 * <ul>
 *   <li>every field of every {@code AuthConfig} (registry credentials);
 *   <li>the value of every {@code KeyValue} (container environment) whose key looks secret;
 *   <li>the value of every map entry (annotations, labels, verbose {@code info}) whose key looks
 *       secret; other values that are JSON (verbose info embeds the OCI spec and containerd's
 *       {@code config.envs}) are parsed and walked ({@link SecretText});
 *   <li>in repeated strings (command, args, exec {@code cmd}): {@code NAME=value},
 *       {@code --flag=value} and {@code --flag value} with a secret-looking name;
 *   <li>the same words in every other string;
 *   <li>bytes fields other than environment values (ExecSync's stdout and stderr) entirely: a
 *       command's output can hold anything, so the dump keeps only its length.
 * </ul>
 * "Looks secret" is the configured pattern, found anywhere in the name.
 */
final class SecretRedactor {

  static final String REDACTED = "<redacted>";

  private final Pattern names;
  private final SecretText text;

  SecretRedactor(Pattern names) {
    this.names = names;
    this.text = new SecretText(name -> names.matcher(name).find());
  }

  /** For text outside messages: a call's error description. */
  String redactText(String value) {
    return text.text(value);
  }

  Message redact(Message message) {
    if (message.getDescriptorForType() == AuthConfig.getDescriptor()) {
      return redactAuth(message);
    }
    if (message instanceof KeyValue env) {
      return redactEnv(env);
    }
    Message.Builder copy = null;
    for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      Object redacted = redactField(field, entry.getValue());
      if (redacted != entry.getValue()) {
        copy = copy == null ? message.toBuilder() : copy;
        copy.setField(field, redacted);
      }
    }
    return copy == null ? message : copy.build();
  }

  @SuppressWarnings("unchecked")
  private Object redactField(FieldDescriptor field, Object value) {
    return switch (field.getJavaType()) {
      case MESSAGE -> field.isRepeated() ? redactEach((List<Message>) value) : redact((Message) value);
      case STRING -> field.isRepeated() ? text.argv((List<String>) value) : same(value, text.jsonOrText((String) value));
      case BYTE_STRING -> field.isRepeated() ? value : hideBytes((ByteString) value);
      default -> value;
    };
  }

  private List<Message> redactEach(List<Message> values) {
    List<Message> copy = null;
    for (int i = 0; i < values.size(); i++) {
      Message value = values.get(i);
      Message redacted = isMapEntry(value) ? redactMapEntry(value) : redact(value);
      if (redacted != value) {
        copy = copy == null ? new ArrayList<>(values) : copy;
        copy.set(i, redacted);
      }
    }
    return copy == null ? values : copy;
  }

  private static boolean isMapEntry(Message value) {
    return value.getDescriptorForType().getOptions().getMapEntry();
  }

  private Message redactMapEntry(Message entry) {
    Descriptor type = entry.getDescriptorForType();
    FieldDescriptor keyField = type.findFieldByName("key");
    FieldDescriptor valueField = type.findFieldByName("value");
    if (valueField.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      Message value = (Message) entry.getField(valueField);
      Message redacted = redact(value);
      return redacted == value ? entry : entry.toBuilder().setField(valueField, redacted).build();
    }
    if (valueField.getJavaType() != FieldDescriptor.JavaType.STRING) {
      return entry;
    }
    String value = (String) entry.getField(valueField);
    Object key = entry.getField(keyField);
    String redacted = key instanceof String name && names.matcher(name).find() && !value.isEmpty()
        ? REDACTED : text.jsonOrText(value);
    return redacted.equals(value) ? entry : entry.toBuilder().setField(valueField, redacted).build();
  }

  private static Object same(Object original, String redacted) {
    return redacted.equals(original) ? original : redacted;
  }

  private static Object hideBytes(ByteString value) {
    return value.isEmpty() ? value : ByteString.copyFromUtf8("<redacted: %d bytes>".formatted(value.size()));
  }

  private static Message redactAuth(Message auth) {
    Message.Builder copy = auth.toBuilder();
    auth.getAllFields().keySet().forEach(f -> copy.setField(f, REDACTED));
    return copy.build();
  }

  private KeyValue redactEnv(KeyValue env) {
    if (!names.matcher(env.getKey()).find()) {
      return env;
    }
    return env.toBuilder().setValue(ByteString.copyFromUtf8(REDACTED)).build();
  }
}
