package io.crigate.ttrpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** One ttrpc service: its full name (e.g. {@code nri.pkg.api.v1alpha1.Plugin}) and its methods. */
public final class ServiceDefinition {

  /** A method as the server runs it: the returned bytes become the response's payload. */
  interface Method {
    byte[] invoke(ServerStream stream) throws Exception;
  }

  private final String name;
  private final Map<String, Method> methods;

  private ServiceDefinition(String name, Map<String, Method> methods) {
    this.name = name;
    this.methods = Map.copyOf(methods);
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public String name() {
    return name;
  }

  Optional<Method> method(String method) {
    return Optional.ofNullable(methods.get(method));
  }

  /** Typed unary handler over generated protobuf messages. */
  @FunctionalInterface
  public interface TypedUnary<Q, R extends MessageLite> {
    R handle(CallContext context, Q request) throws Exception;
  }

  public static final class Builder {
    private final String name;
    private final Map<String, Method> methods = new HashMap<>();

    private Builder(String name) {
      this.name = name;
    }

    public Builder unary(String method, UnaryHandler handler) {
      return add(method, stream -> handler.handle(stream.context(), stream.receive().orElse(new byte[0])));
    }

    public <Q, R extends MessageLite> Builder unary(String method, Parser<Q> parser, TypedUnary<Q, R> handler) {
      return unary(method, (context, request) -> handler.handle(context, parse(parser, request)).toByteArray());
    }

    public Builder stream(String method, StreamHandler handler) {
      return add(method, stream -> {
        handler.handle(stream);
        return new byte[0];
      });
    }

    public ServiceDefinition build() {
      return new ServiceDefinition(name, methods);
    }

    private Builder add(String method, Method m) {
      if (methods.putIfAbsent(method, m) != null) {
        throw new IllegalArgumentException("method %s.%s registered twice".formatted(name, method));
      }
      return this;
    }

    private static <Q> Q parse(Parser<Q> parser, byte[] request) {
      try {
        return parser.parseFrom(request);
      } catch (InvalidProtocolBufferException e) {
        throw new TtrpcException(Code.INVALID_ARGUMENT, "cannot decode request: " + e.getMessage());
      }
    }
  }
}
