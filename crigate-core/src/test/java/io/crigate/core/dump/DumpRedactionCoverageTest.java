package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ImageServiceGrpc;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 10 item 5: every request and response of CRI v1 (the v0.36.3 schema, which CriSchemaTest
 * pins to the published wire table) is filled with a secret in every place one can ride: each
 * string, each argv-like repeated string (as {@code --password=}, {@code TOKEN=} and
 * {@code --token value}), each map (a secret-named key, a JSON value with env entries), each env
 * entry, each registry credential and each bytes field. The dump of the call, in both formats, must
 * not contain the secret in clear or in base64.
 */
class DumpRedactionCoverageTest {

  private static final String SECRET = "s3cr3t-7f1d";
  private static final int MAX_DEPTH = 8;

  record Call(String method, Message request, Message response) {
    @Override
    public String toString() {
      return method;
    }
  }

  static Stream<Call> everyRpc() {
    List<Call> calls = new ArrayList<>();
    for (ServiceDescriptor service : List.of(RuntimeServiceGrpc.getServiceDescriptor(),
        ImageServiceGrpc.getServiceDescriptor())) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        calls.add(new Call(method.getFullMethodName(), filled(prototype(method.getRequestMarshaller())),
            filled(prototype(method.getResponseMarshaller()))));
      }
    }
    return calls.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyRpc")
  void noSecretSurvivesTheDump(Call call) {
    for (DumpFormat format : DumpFormat.values()) {
      DumpEncoder encoder = new DumpEncoder(format, new SecretRedactor(Pattern.compile(DumpSettings.DEFAULT_REDACT_ENV)));
      String dump = encoder.encode(new DumpedCall(Instant.EPOCH, call.method(), 1000,
          Status.UNKNOWN.withDescription("backend said: login --password=" + SECRET + " failed"), DumpLevel.FULL,
          call.request(), call.response(), 1));

      assertThat(dump).as(format.name()).doesNotContain(SECRET)
          .doesNotContain(Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)))
          .doesNotContain(SECRET.substring(2));
    }
  }

  /**
   * The walk reaches every string, bytes and map field of every message type the RPCs use, so a
   * redactor that missed one would show the secret above. (Calls with ids only still carry the
   * secret in their error description.)
   */
  @org.junit.jupiter.api.Test
  void theFillCoversEveryStringBytesAndMapFieldOfTheSchema() {
    Set<FieldDescriptor> reachable = new HashSet<>();
    Set<FieldDescriptor> filled = new HashSet<>();
    everyRpc().forEach(call -> {
      collect(call.request().getDescriptorForType(), reachable, new HashSet<>());
      collect(call.response().getDescriptorForType(), reachable, new HashSet<>());
      markFilled(call.request(), filled);
      markFilled(call.response(), filled);
    });
    assertThat(reachable).hasSizeGreaterThan(100);
    assertThat(reachable).allSatisfy(field -> assertThat(filled).as(field.getFullName()).contains(field));
  }

  private static Message prototype(MethodDescriptor.Marshaller<?> marshaller) {
    return (Message) ((MethodDescriptor.PrototypeMarshaller<?>) marshaller).getMessagePrototype();
  }

  private static Message filled(Message prototype) {
    Message.Builder builder = prototype.newBuilderForType();
    fill(builder, 0);
    return builder.build();
  }

  private static void fill(Message.Builder builder, int depth) {
    Descriptor type = builder.getDescriptorForType();
    if (type == KeyValue.getDescriptor()) {
      builder.setField(type.findFieldByName("key"), "API_TOKEN");
      builder.setField(type.findFieldByName("value"), ByteString.copyFromUtf8(SECRET));
      return;
    }
    for (FieldDescriptor field : type.getFields()) {
      if (field.getRealContainingOneof() != null && builder.hasOneof(field.getRealContainingOneof())) {
        continue;
      }
      switch (field.getJavaType()) {
        case STRING -> {
          if (field.isRepeated()) {
            List.of("--password=" + SECRET, "TOKEN=" + SECRET, "--token", SECRET, "plain")
                .forEach(word -> builder.addRepeatedField(field, word));
          } else {
            builder.setField(field, singleString(type, field));
          }
        }
        case BYTE_STRING -> builder.setField(field, ByteString.copyFromUtf8(SECRET));
        case MESSAGE -> {
          if (field.isMapField()) {
            fillMap(builder, field, depth);
          } else if (depth < MAX_DEPTH) {
            Message.Builder child = builder.newBuilderForField(field);
            fill(child, depth + 1);
            if (field.isRepeated()) {
              builder.addRepeatedField(field, child.build());
            } else {
              builder.setField(field, child.build());
            }
          }
        }
        default -> { }
      }
    }
  }

  /** Ids are routing keys, not secret-bearing, and the dump envelope lists them as they are. */
  private static String singleString(Descriptor type, FieldDescriptor field) {
    if (type == AuthConfig.getDescriptor()) {
      return SECRET;
    }
    return field.getName().endsWith("_id") || field.getName().equals("id") ? "plain-id" : "TOKEN=" + SECRET;
  }

  private static void fillMap(Message.Builder builder, FieldDescriptor field, int depth) {
    Descriptor entry = field.getMessageType();
    FieldDescriptor key = entry.findFieldByName("key");
    FieldDescriptor value = entry.findFieldByName("value");
    if (value.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      if (depth < MAX_DEPTH) {
        Message.Builder child = builder.newBuilderForField(field).newBuilderForField(value);
        fill(child, depth + 1);
        builder.addRepeatedField(field, builder.newBuilderForField(field).setField(key, "k")
            .setField(value, child.build()).build());
      }
      return;
    }
    String json = "{\"config\":{\"envs\":[{\"key\":\"DB_PASSWORD\",\"value\":\"" + SECRET + "\"}]},"
        + "\"process\":{\"env\":[\"API_KEY=" + SECRET + "\"],\"args\":[\"app\",\"--token\",\"" + SECRET + "\"]}}";
    builder.addRepeatedField(field, builder.newBuilderForField(field).setField(key, "DB_PASSWORD")
        .setField(value, SECRET).build());
    builder.addRepeatedField(field, builder.newBuilderForField(field).setField(key, "info").setField(value, json).build());
    builder.addRepeatedField(field, builder.newBuilderForField(field).setField(key, "app")
        .setField(value, "--db-passwd=" + SECRET).build());
  }

  private static void collect(Descriptor type, Set<FieldDescriptor> into, Set<Descriptor> seen) {
    if (!seen.add(type) || type.getOptions().getMapEntry()) {
      return;
    }
    for (FieldDescriptor field : type.getFields()) {
      switch (field.getJavaType()) {
        case STRING, BYTE_STRING -> into.add(field);
        case MESSAGE -> {
          if (field.isMapField()) {
            into.add(field);
          } else {
            collect(field.getMessageType(), into, seen);
          }
        }
        default -> { }
      }
    }
  }

  private static void markFilled(Message message, Set<FieldDescriptor> into) {
    message.getAllFields().forEach((field, value) -> {
      if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isMapField()) {
        into.add(field);
      } else if (field.isRepeated()) {
        ((List<?>) value).forEach(element -> markFilled((Message) element, into));
      } else {
        markFilled((Message) value, into);
      }
    });
  }
}
