package io.crigate.transport.relay;

/** The HTTP/2 settings both ends of a relay announce. */
final class RelaySettings {

  /** As grpc-java's default flow-control window: a large list answer needs no window round trips. */
  static final int INITIAL_WINDOW_BYTES = 1024 * 1024;

  private RelaySettings() {}
}
