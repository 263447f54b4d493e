package io.crigate.transport.relay;

import io.netty.handler.codec.http2.Http2Settings;

/** The HTTP/2 settings both ends of a relay announce. */
final class RelaySettings {

  /** As grpc-java's default flow-control window: a large list answer needs no window round trips. */
  static final int INITIAL_WINDOW_BYTES = 1024 * 1024;

  private RelaySettings() {}

  static Http2Settings settings() {
    return Http2Settings.defaultSettings().initialWindowSize(INITIAL_WINDOW_BYTES);
  }
}
