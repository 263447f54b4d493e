package io.crigate.ttrpc;

/** Serves a streaming call: reads the client's messages and sends any number back. */
@FunctionalInterface
public interface StreamHandler {

  /** Returning ends the call with OK; throw {@link TtrpcException} to end it with that status. */
  void handle(ServerStream stream) throws Exception;
}
