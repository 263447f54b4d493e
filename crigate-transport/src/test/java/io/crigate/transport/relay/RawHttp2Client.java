package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * An HTTP/2 client by hand, for what a grpc-java client will not do: announce any window, send a
 * header list over the relay's limit, or stop reading altogether. Frames read are recorded as text.
 */
final class RawHttp2Client implements AutoCloseable {

  private final SocketChannel socket;
  private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false, 1 << 20);
  private final FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1 << 20);
  private final ByteBuf inbound = Unpooled.buffer();
  final List<String> frames = new ArrayList<>();
  long dataBytes;

  /** Connects and announces {@code initialWindow} for its streams and the largest window for the connection. */
  RawHttp2Client(Path relaySocket, int initialWindow) throws IOException {
    socket = SocketChannel.open(UnixDomainSocketAddress.of(relaySocket));
    ByteBuf start = Unpooled.buffer();
    FrameCodec.writePreface(start);
    FrameCodec.writeSettings(start, FrameCodec.SETTINGS_INITIAL_WINDOW_SIZE, initialWindow);
    FrameCodec.writeWindowUpdate(start, 0, FrameCodec.MAX_WINDOW_BYTES - FrameCodec.DEFAULT_WINDOW_BYTES);
    send(start);
  }

  /** A unary gRPC request on {@code stream}: headers, one message, end of stream. */
  void request(int stream, String path, Http2Headers extra, byte[] message) throws Exception {
    Http2Headers headers = new DefaultHttp2Headers().method("POST").scheme("http").authority("relay").path(path)
        .add("content-type", "application/grpc").add("te", "trailers");
    headers.add(extra);
    ByteBuf out = Unpooled.buffer();
    int at = out.writerIndex();
    out.writeZero(FrameCodec.HEADER_BYTES);
    encoder.encodeHeaders(stream, headers, out);
    FrameCodec.frameHeaderBlock(out, at, stream, false, FrameCodec.DEFAULT_MAX_FRAME_BYTES);
    FrameCodec.writeDataHeader(out, stream, 5 + message.length, true);
    out.writeByte(0).writeInt(message.length).writeBytes(message);
    send(out);
  }

  /** Reads frames until {@code done} holds for what was read, or {@code limit} passes. */
  List<String> readUntil(Predicate<List<String>> done, Duration limit) throws Exception {
    socket.configureBlocking(false);
    long deadline = System.nanoTime() + limit.toNanos();
    ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
    while (!done.test(frames) && System.nanoTime() < deadline) {
      chunk.clear();
      int read = socket.read(chunk);
      if (read < 0) {
        frames.add("closed");
        break;
      }
      if (read == 0) {
        Thread.sleep(5);
        continue;
      }
      inbound.writeBytes(chunk.flip());
      reader.read(inbound, ByteBufAllocator.DEFAULT, recorder());
      inbound.discardReadBytes();
    }
    return frames;
  }

  private FrameCodec.Frames recorder() {
    return new FrameCodec.Frames() {
      @Override
      public void data(int stream, ByteBuf data, int flowControlled, boolean endStream) {
        dataBytes += data.readableBytes();
      }

      @Override
      public void headers(int stream, ByteBuf block, boolean endStream) {
        try {
          Http2Headers headers = decoder.decodeHeaders(stream, block);
          CharSequence status = headers.get("grpc-status");
          frames.add(status != null ? "trailers " + stream + " grpc-status=" + status
              : "headers " + stream + " :status=" + headers.status());
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }

      @Override
      public void rstStream(int stream, long code) {
        frames.add("rst " + stream + " " + code);
      }

      @Override
      public void settings(boolean ack, ByteBuf payload) {}

      @Override
      public void ping(boolean ack, long data) {}

      @Override
      public void goAway(int lastStream, long code) {
        frames.add("goaway " + lastStream + " " + code);
      }

      @Override
      public void windowUpdate(int stream, int increment) {}
    };
  }

  private void send(ByteBuf out) throws IOException {
    ByteBuffer bytes = out.nioBuffer();
    while (bytes.hasRemaining()) {
      socket.write(bytes);
    }
    out.release();
  }

  @Override
  public void close() throws IOException {
    socket.close();
    inbound.release();
  }
}
