package io.crigate.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The committed wire tables (one row per field, enum value and RPC) and the same rows read back
 * from generated descriptors, so a schema test compares the two as sets.
 */
final class WireTable {

  private WireTable() {
  }

  static Set<String> read(String resource) throws IOException {
    try (InputStream in = WireTable.class.getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      Set<String> rows = new TreeSet<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank()) {
          rows.add(normalize(line));
        }
      }
      return rows;
    }
  }

  /** Pads a row to its five tab-separated columns so trailing empty cells compare equal. */
  private static String normalize(String line) {
    List<String> cells = new ArrayList<>(List.of(line.split("\t", -1)));
    while (cells.size() < 5) {
      cells.add("");
    }
    return String.join("\t", cells.subList(0, 5));
  }

  /** The rows a generated file describes, names relative to {@code pkg} (e.g. {@code runtime.v1.}). */
  static Set<String> describe(FileDescriptor file, String pkg) {
    Set<String> rows = new TreeSet<>();
    for (ServiceDescriptor service : file.getServices()) {
      for (MethodDescriptor m : service.getMethods()) {
        rows.add(String.join("\t", "rpc", service.getName() + "." + m.getName(), "",
            m.getInputType().getName() + "->" + m.getOutputType().getName(),
            m.isServerStreaming() ? "stream" : ""));
      }
    }
    file.getEnumTypes().forEach(e -> describeEnum(e, rows, pkg));
    file.getMessageTypes().forEach(m -> describeMessage(m, rows, pkg));
    return rows;
  }

  private static void describeEnum(EnumDescriptor e, Set<String> rows, String pkg) {
    e.getValues().forEach(v -> rows.add(String.join("\t", "enum",
        relative(e.getFullName(), pkg) + "." + v.getName(), Integer.toString(v.getNumber()), "", "")));
  }

  private static void describeMessage(Descriptor m, Set<String> rows, String pkg) {
    if (m.getOptions().getMapEntry()) {
      return;
    }
    m.getEnumTypes().forEach(e -> describeEnum(e, rows, pkg));
    m.getNestedTypes().forEach(n -> describeMessage(n, rows, pkg));
    for (FieldDescriptor f : m.getFields()) {
      rows.add(String.join("\t", "field", relative(m.getFullName(), pkg) + "." + f.getName(),
          Integer.toString(f.getNumber()), typeOf(f, pkg), labelOf(f)));
    }
  }

  private static String typeOf(FieldDescriptor f, String pkg) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      return "map<" + typeOf(entry.findFieldByName("key"), pkg) + "," + typeOf(entry.findFieldByName("value"), pkg) + ">";
    }
    return switch (f.getType()) {
      case MESSAGE -> relative(f.getMessageType().getFullName(), pkg);
      case ENUM -> relative(f.getEnumType().getFullName(), pkg);
      default -> f.getType().name().toLowerCase();
    };
  }

  private static String labelOf(FieldDescriptor f) {
    if (f.isMapField()) {
      return "map";
    }
    return f.isRepeated() ? "repeated" : "";
  }

  private static String relative(String fullName, String pkg) {
    return fullName.startsWith(pkg) ? fullName.substring(pkg.length()) : fullName;
  }
}
