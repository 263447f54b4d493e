package io.crigate.cli.ctl;

import io.crigate.spi.CrigateException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One forwarded connection: a local TCP connection joined to one port of a pod through a
 * PortForward URL, over WebSocket with {@code v4.channel.k8s.io} as the kubelet's streaming server
 * serves it: the port goes in the {@code port} query parameter, channel 0 carries the data both
 * ways and channel 1 the server's error text, and each channel's first two bytes name the port
 * (little endian). A URL is good for one session, so every connection asks for its own.
 */
final class PortTunnel extends ChannelListener {

  static final String PROTOCOL = "v4.channel.k8s.io";
  /** One for every connection: each client of its own would start a selector thread, left until collected. */
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int DATA = 0;
  private static final int ERROR = 1;
  private static final int PORT_PREFIX = 2;

  private final SocketChannel local;
  private final ByteArrayOutputStream error = new ByteArrayOutputStream();
  private final int[] prefixLeft = {PORT_PREFIX, PORT_PREFIX};
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  private PortTunnel(SocketChannel local) {
    this.local = local;
  }

  /**
   * Joins {@code local} to {@code port} of the pod behind {@code url} until either side closes;
   * the server's error text, if any, goes to {@code err}.
   */
  static void run(String url, int port, SocketChannel local, PrintWriter err) throws IOException {
    PortTunnel tunnel = new PortTunnel(local);
    URI target = URI.create(url.replaceFirst("^http", "ws") + (url.contains("?") ? "&" : "?") + "port=" + port);
    WebSocket socket = open(target, tunnel);
    try {
      ByteBuffer buffer = ByteBuffer.allocate(32 * 1024);
      while (!tunnel.ended.isDone() && local.read(buffer.clear().put((byte) DATA)) > 0) {
        socket.sendBinary(buffer.flip(), true).join();
      }
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "").exceptionally(e -> null);
      tunnel.ended.get(10, TimeUnit.SECONDS);
    } catch (IOException | ExecutionException | TimeoutException | CompletionException e) {
      // the local side or the pod's went away: either ends this connection
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      socket.abort();
      local.close();
      if (tunnel.error.size() > 0) {
        err.println("port " + port + ": " + tunnel.error.toString(StandardCharsets.UTF_8));
        err.flush();
      }
    }
  }

  private static WebSocket open(URI target, PortTunnel tunnel) {
    try {
      return HTTP.newWebSocketBuilder().subprotocols(PROTOCOL)
          .buildAsync(target, tunnel).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new CrigateException.Unavailable("cannot open port forward %s: %s"
          .formatted(target.getPath(), e.getCause().getMessage()), e);
    } catch (TimeoutException e) {
      throw new CrigateException.Unavailable("port forward %s did not answer within 30 s".formatted(target.getPath()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted", e);
    }
  }

  @Override
  void deliver(byte[] frame) {
    if (frame[0] != DATA && frame[0] != ERROR) {
      return;
    }
    int channel = frame[0];
    int skip = Math.min(prefixLeft[channel], frame.length - 1);
    prefixLeft[channel] -= skip;
    int from = 1 + skip;
    if (channel == ERROR) {
      error.write(frame, from, frame.length - from);
      return;
    }
    try {
      ByteBuffer out = ByteBuffer.wrap(frame, from, frame.length - from);
      while (out.hasRemaining()) {
        local.write(out);
      }
    } catch (IOException e) {
      ended.complete(null);
    }
  }

  @Override
  public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    ended.complete(null);
    closeLocal();
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable failure) {
    ended.complete(null);
    closeLocal();
  }

  /** Unblocks the reader of the local side, whose connection has nowhere to go any more. */
  private void closeLocal() {
    try {
      local.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
