package io.crigate.streaming;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** The JDK's WebSocket client speaking {@code v5.channel.k8s.io}: one byte of channel, then data. */
final class WebSocketClient implements WebSocket.Listener {

  private final Map<Integer, ByteArrayOutputStream> channels = new ConcurrentHashMap<>();
  private final CompletableFuture<Integer> closed = new CompletableFuture<>();
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private WebSocket socket;

  static WebSocketClient open(String httpUrl, String subprotocol) throws Exception {
    return open(httpUrl, subprotocol, HttpClient.newHttpClient());
  }

  /** Through {@code http}, e.g. one that trusts a test certificate for an https URL. */
  static WebSocketClient open(String httpUrl, String subprotocol, HttpClient http) throws Exception {
    WebSocketClient client = new WebSocketClient();
    client.socket = http.newWebSocketBuilder().subprotocols(subprotocol)
        .buildAsync(URI.create(httpUrl.replaceFirst("^http", "ws")), client).get(10, TimeUnit.SECONDS);
    return client;
  }

  String subprotocol() {
    return socket.getSubprotocol();
  }

  void send(int channel, String data) throws Exception {
    byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
    ByteBuffer message = ByteBuffer.allocate(bytes.length + 1).put((byte) channel).put(bytes).flip();
    socket.sendBinary(message, true).get(10, TimeUnit.SECONDS);
  }

  /** v5's close signal for one channel. */
  void closeChannel(int channel) throws Exception {
    socket.sendBinary(ByteBuffer.wrap(new byte[] {(byte) 255, (byte) channel}), true).get(10, TimeUnit.SECONDS);
  }

  /** Waits for the server to end the session; what arrived on {@code channel}. */
  String received(int channel) throws Exception {
    closed.get(10, TimeUnit.SECONDS);
    ByteArrayOutputStream bytes = channels.get(channel);
    return bytes == null ? "" : bytes.toString(StandardCharsets.UTF_8);
  }

  /** Waits for the server to end the session; the bytes that arrived on {@code channel}. */
  byte[] receivedBytes(int channel) throws Exception {
    closed.get(10, TimeUnit.SECONDS);
    return soFar(channel);
  }

  /** What arrived on {@code channel} until now. */
  byte[] soFar(int channel) {
    ByteArrayOutputStream bytes = channels.get(channel);
    return bytes == null ? new byte[0] : bytes.toByteArray();
  }

  void closeNormally() throws Exception {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
  }

  /** Completes when the connection ends, by a close frame or by the server dropping it. */
  CompletableFuture<Integer> ended() {
    return closed.handle((code, failure) -> code == null ? -1 : code);
  }

  int closeCode() throws Exception {
    return closed.get(10, TimeUnit.SECONDS);
  }

  @Override
  public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    partial.writeBytes(bytes);
    if (last) {
      byte[] message = partial.toByteArray();
      partial.reset();
      channels.computeIfAbsent(message[0] & 0xff, c -> new ByteArrayOutputStream())
          .writeBytes(java.util.Arrays.copyOfRange(message, 1, message.length));
    }
    webSocket.request(1);
    return null;
  }

  @Override
  public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    closed.complete(statusCode);
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    closed.completeExceptionally(error);
  }
}
