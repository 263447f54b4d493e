package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The relay's frame reader and writers on hand-made bytes, split every way a socket may split them. */
class FrameCodecTest {

  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  @Test
  void framesWrittenAreReadBackWhateverTheReadsSplitThem() {
    ByteBuf wire = Unpooled.buffer();
    FrameCodec.writeSettings(wire, FrameCodec.SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20, FrameCodec.SETTINGS_MAX_FRAME_SIZE, 20_000);
    FrameCodec.writeSettingsAck(wire);
    FrameCodec.writePing(wire, false, 0x0102030405060708L);
    FrameCodec.writeWindowUpdate(wire, 3, 1000);
    FrameCodec.writeDataHeader(wire, 3, 5, true);
    wire.writeBytes("hello".getBytes(StandardCharsets.US_ASCII));
    FrameCodec.writeRstStream(wire, 5, FrameCodec.CANCEL);
    FrameCodec.writeGoAway(wire, 7, FrameCodec.NO_ERROR);
    List<String> whole = read(wire.duplicate(), wire.readableBytes());

    assertThat(whole).containsExactly("settings 4=1048576 5=20000", "settings ack", "ping 0102030405060708",
        "window 3 +1000", "data 3 'hello' 5 end", "rst 5 8", "goaway 7 0");
    for (int chunk = 1; chunk < 40; chunk++) {
      assertThat(read(wire.duplicate(), chunk)).as("read in pieces of %d bytes", chunk).isEqualTo(whole);
    }
  }

  @Test
  void paddingIsTakenOffDataAndHeadersButCountsForFlowControl() throws Exception {
    ByteBuf wire = Unpooled.buffer();
    // DATA: pad length 3, "abc", 3 bytes of padding
    FrameCodec.writeHeader(wire, 1 + 3 + 3, FrameCodec.DATA, FrameCodec.FLAG_PADDED, 1);
    wire.writeByte(3).writeBytes("abc".getBytes(StandardCharsets.US_ASCII)).writeZero(3);
    // HEADERS: padded and with priority fields, whole block in one frame
    ByteBuf block = encode(new DefaultHttp2Headers().method("POST").path("/x.Y/Z"));
    FrameCodec.writeHeader(wire, 1 + 5 + block.readableBytes() + 2, FrameCodec.HEADERS,
        FrameCodec.FLAG_PADDED | FrameCodec.FLAG_PRIORITY | FrameCodec.FLAG_END_HEADERS | FrameCodec.FLAG_END_STREAM, 3);
    wire.writeByte(2).writeInt(1).writeByte(15).writeBytes(block).writeZero(2);

    assertThat(read(wire, wire.readableBytes())).containsExactly("data 1 'abc' 7", "headers 3 /x.Y/Z end");
  }

  @Test
  void aHeaderBlockSplitOverContinuationFramesIsHandedOnWholeAndWrittenSplitAgain() throws Exception {
    Http2Headers headers = new DefaultHttp2Headers().method("POST").path("/runtime.v1.RuntimeService/ContainerStatus")
        .add("x-long", "v".repeat(40_000));
    ByteBuf block = encode(headers);
    int blockBytes = block.readableBytes();
    ByteBuf wire = Unpooled.buffer();
    int at = wire.writerIndex();
    wire.writeZero(FrameCodec.HEADER_BYTES).writeBytes(block);
    FrameCodec.frameHeaderBlock(wire, at, 5, false, FrameCodec.DEFAULT_MAX_FRAME_BYTES);

    // HEADERS + 2 CONTINUATION frames, only the last with END_HEADERS
    assertThat(wire.getUnsignedMedium(0)).isEqualTo(FrameCodec.DEFAULT_MAX_FRAME_BYTES);
    assertThat(wire.getByte(3)).isEqualTo((byte) FrameCodec.HEADERS);
    assertThat(wire.getByte(4) & FrameCodec.FLAG_END_HEADERS).isZero();
    int second = FrameCodec.HEADER_BYTES + FrameCodec.DEFAULT_MAX_FRAME_BYTES;
    assertThat(wire.getByte(second + 3)).isEqualTo((byte) FrameCodec.CONTINUATION);
    assertThat(wire.readableBytes()).isEqualTo(3 * FrameCodec.HEADER_BYTES + blockBytes);

    for (int chunk : new int[] {wire.readableBytes(), 1, 7, 9, 16_393, 20_000}) {
      assertThat(read(wire.duplicate(), chunk)).as("read in pieces of %d bytes", chunk)
          .containsExactly("headers 5 /runtime.v1.RuntimeService/ContainerStatus x-long=40000");
    }
  }

  @Test
  void aPartialFrameStaysUnreadUntilItIsWhole() {
    ByteBuf wire = Unpooled.buffer();
    FrameCodec.writeDataHeader(wire, 1, 4, false);
    wire.writeBytes(new byte[] {1, 2, 3});
    List<String> frames = new ArrayList<>();
    FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1024);

    reader.read(wire, ALLOC, recorder(frames, 1024));
    assertThat(frames).isEmpty();
    assertThat(wire.readerIndex()).isZero();

    wire.writeByte(4);
    reader.read(wire, ALLOC, recorder(frames, 1024));
    assertThat(frames).containsExactly("data 1 '\u0001\u0002\u0003\u0004' 4");
    assertThat(wire.isReadable()).isFalse();
  }

  @Test
  void brokenFramingEndsTheConnection() {
    FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1024);
    ByteBuf oversized = Unpooled.buffer();
    FrameCodec.writeDataHeader(oversized, 1, FrameCodec.DEFAULT_MAX_FRAME_BYTES + 1, false);
    assertThatThrownBy(() -> reader.read(oversized, ALLOC, recorder(new ArrayList<>(), 1024)))
        .isInstanceOfSatisfying(FrameCodec.ConnectionError.class, e -> assertThat(e.code).isEqualTo(FrameCodec.FRAME_SIZE_ERROR));

    ByteBuf interleaved = Unpooled.buffer();
    FrameCodec.writeHeader(interleaved, 1, FrameCodec.HEADERS, 0, 1); // no END_HEADERS
    interleaved.writeByte(0x82);
    FrameCodec.writePing(interleaved, false, 1);
    assertThatThrownBy(() -> new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1024)
        .read(interleaved, ALLOC, recorder(new ArrayList<>(), 1024)))
        .isInstanceOfSatisfying(FrameCodec.ConnectionError.class, e -> assertThat(e.code).isEqualTo(FrameCodec.PROTOCOL_ERROR));

    ByteBuf overPadded = Unpooled.buffer();
    FrameCodec.writeHeader(overPadded, 2, FrameCodec.DATA, FrameCodec.FLAG_PADDED, 1);
    overPadded.writeByte(5).writeByte(0);
    assertThatThrownBy(() -> new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1024)
        .read(overPadded, ALLOC, recorder(new ArrayList<>(), 1024)))
        .isInstanceOfSatisfying(FrameCodec.ConnectionError.class, e -> assertThat(e.code).isEqualTo(FrameCodec.PROTOCOL_ERROR));
  }

  @Test
  void aHeaderBlockPastTheHoldingLimitEndsTheConnection() {
    ByteBuf wire = Unpooled.buffer();
    FrameCodec.writeHeader(wire, 600, FrameCodec.HEADERS, 0, 1);
    wire.writeZero(600);
    FrameCodec.writeHeader(wire, 600, FrameCodec.CONTINUATION, FrameCodec.FLAG_END_HEADERS, 1);
    wire.writeZero(600);
    FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 1000);
    assertThatThrownBy(() -> reader.read(wire, ALLOC, recorder(new ArrayList<>(), 1000)))
        .isInstanceOfSatisfying(FrameCodec.ConnectionError.class, e -> assertThat(e.code).isEqualTo(FrameCodec.ENHANCE_YOUR_CALM));
    reader.release();
  }

  /** Feeds {@code wire} to a reader {@code chunk} bytes at a time, as a connection's reads would. */
  private static List<String> read(ByteBuf wire, int chunk) {
    List<String> frames = new ArrayList<>();
    FrameCodec.Reader reader = new FrameCodec.Reader(FrameCodec.DEFAULT_MAX_FRAME_BYTES, 64 * 1024);
    ByteBuf buffered = Unpooled.buffer();
    while (wire.isReadable()) {
      buffered.writeBytes(wire, Math.min(chunk, wire.readableBytes()));
      reader.read(buffered, ALLOC, recorder(frames, 64 * 1024));
      buffered.discardReadBytes();
    }
    assertThat(buffered.isReadable()).as("nothing left over").isFalse();
    return frames;
  }

  private static ByteBuf encode(Http2Headers headers) throws Exception {
    ByteBuf block = Unpooled.buffer();
    new DefaultHttp2HeadersEncoder().encodeHeaders(1, headers, block);
    return block;
  }

  private static FrameCodec.Frames recorder(List<String> frames, long maxHeaderList) {
    DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false, maxHeaderList);
    return new FrameCodec.Frames() {
      @Override
      public void data(int stream, ByteBuf data, int flowControlled, boolean endStream) {
        frames.add("data " + stream + " '" + data.toString(StandardCharsets.ISO_8859_1) + "' " + flowControlled
            + (endStream ? " end" : ""));
      }

      @Override
      public void headers(int stream, ByteBuf block, boolean endStream) {
        try {
          Http2Headers headers = decoder.decodeHeaders(stream, block);
          CharSequence longValue = headers.get("x-long");
          frames.add("headers " + stream + " " + headers.path() + (longValue == null ? "" : " x-long=" + longValue.length())
              + (endStream ? " end" : ""));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }

      @Override
      public void rstStream(int stream, long code) {
        frames.add("rst " + stream + " " + code);
      }

      @Override
      public void settings(boolean ack, ByteBuf payload) {
        StringBuilder text = new StringBuilder(ack ? "settings ack" : "settings");
        for (int at = payload.readerIndex(); at < payload.writerIndex(); at += 6) {
          text.append(' ').append(payload.getUnsignedShort(at)).append('=').append(payload.getUnsignedInt(at + 2));
        }
        frames.add(text.toString());
      }

      @Override
      public void ping(boolean ack, long data) {
        frames.add("ping " + ByteBufUtil.hexDump(Unpooled.copyLong(data)) + (ack ? " ack" : ""));
      }

      @Override
      public void goAway(int lastStream, long code) {
        frames.add("goaway " + lastStream + " " + code);
      }

      @Override
      public void windowUpdate(int stream, int increment) {
        frames.add("window " + stream + " +" + increment);
      }
    };
  }
}
