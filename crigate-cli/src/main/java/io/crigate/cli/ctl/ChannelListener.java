package io.crigate.cli.ctl;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * The receiving side of the k8s channel WebSocket protocols: the JDK hands a message over in parts,
 * and each whole binary message is one channel byte followed by that channel's data.
 */
abstract class ChannelListener implements WebSocket.Listener {

  private final ByteArrayOutputStream message = new ByteArrayOutputStream();

  /** One whole message: {@code frame[0]} is the channel. */
  abstract void deliver(byte[] frame);

  @Override
  public final CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    message.writeBytes(bytes);
    if (last) {
      byte[] frame = message.toByteArray();
      message.reset();
      if (frame.length > 0) {
        deliver(frame);
      }
    }
    webSocket.request(1);
    return null;
  }
}
