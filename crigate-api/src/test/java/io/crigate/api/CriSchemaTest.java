package io.crigate.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.crigate.api.cri.v1.Api;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The generated descriptors must describe exactly the rows of the committed CRI table: any field,
 * enum value or RPC that is added, dropped, renumbered or retyped fails the build.
 */
class CriSchemaTest {

  private static final String PACKAGE = "runtime.v1.";

  @Test
  void descriptorsMatchTheWireTable() throws IOException {
    Set<String> expected = readTable("/cri-runtime-v1-v0.36.3.tsv");
    Set<String> actual = describe(Api.getDescriptor());

    assertThat(actual).as("rows generated from api.proto").containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void tableHasAllFortyOneRpcs() throws IOException {
    long rpcs = readTable("/cri-runtime-v1-v0.36.3.tsv").stream().filter(r -> r.startsWith("rpc\t")).count();
    assertThat(rpcs).isEqualTo(41);
    assertThat(Api.getDescriptor().getServices().stream().mapToInt(s -> s.getMethods().size()).sum())
        .isEqualTo(41);
  }

  private static Set<String> readTable(String resource) throws IOException {
    try (InputStream in = CriSchemaTest.class.getResourceAsStream(resource)) {
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

  static Set<String> describe(FileDescriptor file) {
    Set<String> rows = new TreeSet<>();
    for (ServiceDescriptor service : file.getServices()) {
      for (MethodDescriptor m : service.getMethods()) {
        rows.add(String.join("\t", "rpc", service.getName() + "." + m.getName(), "",
            m.getInputType().getName() + "->" + m.getOutputType().getName(),
            m.isServerStreaming() ? "stream" : ""));
      }
    }
    file.getEnumTypes().forEach(e -> describeEnum(e, rows));
    file.getMessageTypes().forEach(m -> describeMessage(m, rows));
    return rows;
  }

  private static void describeEnum(EnumDescriptor e, Set<String> rows) {
    e.getValues().forEach(v -> rows.add(String.join("\t", "enum",
        relative(e.getFullName()) + "." + v.getName(), Integer.toString(v.getNumber()), "", "")));
  }

  private static void describeMessage(Descriptor m, Set<String> rows) {
    if (m.getOptions().getMapEntry()) {
      return;
    }
    m.getEnumTypes().forEach(e -> describeEnum(e, rows));
    m.getNestedTypes().forEach(n -> describeMessage(n, rows));
    for (FieldDescriptor f : m.getFields()) {
      rows.add(String.join("\t", "field", relative(m.getFullName()) + "." + f.getName(),
          Integer.toString(f.getNumber()), typeOf(f), labelOf(f)));
    }
  }

  private static String typeOf(FieldDescriptor f) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      return "map<" + typeOf(entry.findFieldByName("key")) + "," + typeOf(entry.findFieldByName("value")) + ">";
    }
    return switch (f.getType()) {
      case MESSAGE -> relative(f.getMessageType().getFullName());
      case ENUM -> relative(f.getEnumType().getFullName());
      default -> f.getType().name().toLowerCase();
    };
  }

  private static String labelOf(FieldDescriptor f) {
    if (f.isMapField()) {
      return "map";
    }
    return f.isRepeated() ? "repeated" : "";
  }

  private static String relative(String fullName) {
    return fullName.startsWith(PACKAGE) ? fullName.substring(PACKAGE.length()) : fullName;
  }
}
