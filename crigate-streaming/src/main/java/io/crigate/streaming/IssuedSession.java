package io.crigate.streaming;

/** What a streaming URL was issued for: an exec or attach session, or a port forward. */
sealed interface IssuedSession permits StreamRequest, ForwardRequest {

  /** The URL path segment, which the client's URL must repeat: {@code exec}, {@code attach} or {@code portforward}. */
  String kind();

  /** For logs: never a command's arguments, which may hold secrets. */
  String what();
}
