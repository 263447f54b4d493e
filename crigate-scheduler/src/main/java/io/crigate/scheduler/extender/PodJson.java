package io.crigate.scheduler.extender;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.crigate.scheduler.extender.PodCpu.ContainerCpu;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads the pod of an extender request straight off the parser: its name, its containers' images
 * and what {@link PodCpu} counts, skipping everything else (managed fields, volumes, probes,
 * status) without building a tree or a fabric8 {@code Pod}. Keys are matched exactly, as a
 * fabric8 {@code Pod} reads them; a field of the wrong JSON type is a bad request naming the field.
 */
final class PodJson {

  private String namespace;
  private String name;
  private boolean hasSpec;
  private List<Container> initContainers = List.of();
  private List<Container> containers = List.of();
  private Long podLevelCpu;
  private long overheadCpu;

  /** One container's fields as they are read. */
  private static final class Container {
    String name;
    String image;
    String restartPolicy;
    Long cpu;

    ContainerCpu cpu() {
      return new ContainerCpu(cpu == null ? 0 : cpu, PodCpu.SIDECAR_RESTART_POLICY.equals(restartPolicy));
    }
  }

  private PodJson() {}

  /** The parser stands on the pod's value; on return, on the pod's last token. */
  static PodJson read(JsonParser parser) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      throw new InvalidArgument("missing Pod");
    }
    PodJson pod = new PodJson();
    object(parser, "Pod", field -> {
      switch (field) {
        case "metadata" -> pod.metadata(parser);
        case "spec" -> pod.spec(parser);
        default -> parser.skipChildren();
      }
    });
    pod.validate();
    return pod;
  }

  PodRequest request() {
    return new PodRequest(namespace, name,
        Stream.concat(initContainers.stream(), containers.stream()).map(c -> c.image).toList());
  }

  long cpuMillis() {
    return PodCpu.millis(initContainers.stream().map(Container::cpu).toList(),
        containers.stream().map(Container::cpu).toList(), podLevelCpu, overheadCpu);
  }

  private void metadata(JsonParser parser) throws IOException {
    object(parser, "metadata", field -> {
      switch (field) {
        case "name" -> name = text(parser, "metadata.name");
        case "namespace" -> namespace = text(parser, "metadata.namespace");
        default -> parser.skipChildren();
      }
    });
  }

  private void spec(JsonParser parser) throws IOException {
    hasSpec = parser.currentToken() != JsonToken.VALUE_NULL;
    object(parser, "spec", field -> {
      switch (field) {
        case "initContainers" -> initContainers = containers(parser, "spec.initContainers");
        case "containers" -> containers = containers(parser, "spec.containers");
        case "resources" -> podLevelCpu = requestedCpu(parser, "spec.resources");
        case "overhead" -> overheadCpu = cpu(parser, "spec.overhead");
        default -> parser.skipChildren();
      }
    });
  }

  private static List<Container> containers(JsonParser parser, String what) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return List.of();
    }
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw notAPod(what + " must be an array");
    }
    List<Container> read = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      Container container = new Container();
      object(parser, what + "[]", field -> {
        switch (field) {
          case "name" -> container.name = text(parser, what + "[].name");
          case "image" -> container.image = text(parser, what + "[].image");
          case "restartPolicy" -> container.restartPolicy = text(parser, what + "[].restartPolicy");
          case "resources" -> container.cpu = requestedCpu(parser, what + "[].resources");
          default -> parser.skipChildren();
        }
      });
      read.add(container);
    }
    return read;
  }

  /** {@code {"requests": {"cpu": q}}}: the CPU request, null when none is set. */
  private static Long requestedCpu(JsonParser parser, String what) throws IOException {
    Long[] cpu = {null};
    object(parser, what, field -> {
      if (field.equals("requests")) {
        cpu[0] = cpuOrNull(parser, what + ".requests");
      } else {
        parser.skipChildren();
      }
    });
    return cpu[0];
  }

  /** A resource list's CPU, 0 when it has none. */
  private static long cpu(JsonParser parser, String what) throws IOException {
    Long cpu = cpuOrNull(parser, what);
    return cpu == null ? 0 : cpu;
  }

  /** A resource list's CPU in millicores; null when the list has no {@code cpu} key, 0 when its value is null. */
  private static Long cpuOrNull(JsonParser parser, String what) throws IOException {
    Long[] cpu = {null};
    object(parser, what, field -> {
      if (field.equals("cpu")) {
        String quantity = text(parser, what + ".cpu");
        cpu[0] = quantity == null ? 0 : PodCpu.millis(quantity);
      } else {
        parser.skipChildren();
      }
    });
    return cpu[0];
  }

  private void validate() {
    if (!hasSpec || containers.isEmpty()) {
      throw new InvalidArgument("Pod has no spec.containers");
    }
    for (Container container : containers) {
      if (container.image == null || container.image.isBlank()) {
        throw new InvalidArgument("container %s of Pod has no image".formatted(container.name));
      }
    }
  }

  private interface FieldReader {
    void read(String field) throws IOException;
  }

  /** Calls {@code reader} on each field with the parser on its value; JSON null reads as an empty object. */
  private static void object(JsonParser parser, String what, FieldReader reader) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return;
    }
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw notAPod(what + " must be an object");
    }
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      reader.read(field);
    }
  }

  /** A string field; null for JSON null; a number or boolean as its text, as Jackson binds it to a String. */
  private static String text(JsonParser parser, String what) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (!token.isScalarValue()) {
      throw notAPod(what + " must be a string");
    }
    return parser.getText();
  }

  private static InvalidArgument notAPod(String problem) {
    return new InvalidArgument("Pod is not a v1.Pod: " + problem);
  }
}
