package io.crigate.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side of a CRI streaming URL (Exec, Attach) over WebSocket with {@code
 * v5.channel.k8s.io}, falling back to {@code v4.channel.k8s.io} (containerd's streaming server):
 * every binary message is one channel byte and data; the session's status arrives on channel 3.
 */
final class StreamClient extends ChannelListener {

  static final String V5 = "v5.channel.k8s.io";
  static final String V4 = "v4.channel.k8s.io";
  private static final int STDIN = 0;
  private static final int STDOUT = 1;
  private static final int STDERR = 2;
  private static final int ERROR = 3;
  private static final int RESIZE = 4;
  private static final int CLOSE = 255;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OutputStream stdout;
  private final OutputStream stderr;
  private final ByteArrayOutputStream status = new ByteArrayOutputStream();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private WebSocket socket;

  private StreamClient(OutputStream stdout, OutputStream stderr) {
    this.stdout = stdout;
    this.stderr = stderr;
  }

  static StreamClient connect(String url, OutputStream stdout, OutputStream stderr) {
    StreamClient client = new StreamClient(stdout, stderr);
    URI target = URI.create(url.replaceFirst("^http", "ws"));
    try {
      client.socket = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols(V5, V4)
          .buildAsync(target, client).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new CrigateException.Unavailable("cannot open stream %s: %s".formatted(target.getPath(), e.getCause().getMessage()), e);
    } catch (TimeoutException e) {
      throw new CrigateException.Unavailable("stream %s did not answer within 30 s".formatted(target.getPath()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted", e);
    }
    return client;
  }

  /**
   * Sends {@code stdin} until its end on a daemon thread (a read of the console cannot be
   * interrupted), then closes the channel where the protocol can say so (v5).
   */
  void sendStdin(InputStream stdin) {
    Thread.ofPlatform().daemon().name("ctl-stdin").start(() -> {
      byte[] buffer = new byte[8192];
      try {
        for (int n; (n = stdin.read(buffer)) >= 0 && !ended.isDone(); ) {
          send(STDIN, buffer, n);
        }
        if (V5.equals(socket.getSubprotocol()) && !ended.isDone()) {
          send(CLOSE, new byte[] {STDIN}, 1);
        }
      } catch (IOException | RuntimeException e) {
        // the session ended first; its status says how
      }
    });
  }

  void resize(int width, int height) {
    byte[] size = "{\"Width\":%d,\"Height\":%d}".formatted(width, height).getBytes(StandardCharsets.UTF_8);
    send(RESIZE, size, size.length);
  }

  /** The JDK client takes one message at a time; senders wait for the previous one. */
  private synchronized void send(int channel, byte[] data, int length) {
    ByteBuffer frame = ByteBuffer.allocate(length + 1).put((byte) channel).put(data, 0, length).flip();
    socket.sendBinary(frame, true).join();
  }

  /** Waits for the session's end; the command's exit code, or 1 with the failure on stderr. */
  int await() throws IOException {
    try {
      ended.get();
    } catch (ExecutionException e) {
      throw new IOException("stream broke: " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
    return exitCode(status.toByteArray());
  }

  /** Reads the v4/v5 status as client-go does: NonZeroExitCode carries the code in its ExitCode cause. */
  private int exitCode(byte[] json) throws IOException {
    if (json.length == 0) {
      return 0;
    }
    JsonNode parsed = JSON.readTree(json);
    if (parsed.path("status").asText().equals("Success")) {
      return 0;
    }
    if (parsed.path("reason").asText().equals("NonZeroExitCode")) {
      for (JsonNode cause : parsed.path("details").path("causes")) {
        if (cause.path("reason").asText().equals("ExitCode")) {
          return Integer.parseInt(cause.path("message").asText());
        }
      }
    }
    throw new CrigateException.FailedPrecondition(parsed.path("message").asText("stream failed"));
  }

  @Override
  void deliver(byte[] frame) {
    try {
      switch (frame[0]) {
        case STDOUT -> {
          stdout.write(frame, 1, frame.length - 1);
          stdout.flush();
        }
        case STDERR -> {
          stderr.write(frame, 1, frame.length - 1);
          stderr.flush();
        }
        case ERROR -> status.write(frame, 1, frame.length - 1);
        default -> { } // v5 close signals for output channels: the end of the session follows
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    ended.complete(null);
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    ended.completeExceptionally(error);
  }
}
