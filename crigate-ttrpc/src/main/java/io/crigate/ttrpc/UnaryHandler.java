package io.crigate.ttrpc;

/** Answers one request with one response, both as encoded protobuf messages. */
@FunctionalInterface
public interface UnaryHandler {

  /** Throw {@link TtrpcException} to answer with its status; anything else answers UNKNOWN. */
  byte[] handle(CallContext context, byte[] request) throws Exception;
}
