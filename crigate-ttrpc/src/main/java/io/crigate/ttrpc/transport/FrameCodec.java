package io.crigate.ttrpc.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.function.Consumer;

/** ttrpc's 10-byte big-endian header, read from and written to Netty buffers. */
public final class FrameCodec {

  private FrameCodec() {
  }

  /**
   * Takes every complete frame off the front of {@code in}, leaving a partial one in place.
   *
   * @throws BadFrameException for an oversized frame or an unknown message type
   */
  public static void decode(ByteBuf in, Consumer<Frame> out) {
    while (in.readableBytes() >= Frame.HEADER_BYTES) {
      int start = in.readerIndex();
      long length = in.getUnsignedInt(start);
      byte type = in.getByte(start + 8);
      if (length > Frame.MAX_PAYLOAD) {
        throw new BadFrameException("frame of %d bytes on stream %d exceeds the %d-byte limit"
            .formatted(length, in.getUnsignedInt(start + 4), Frame.MAX_PAYLOAD));
      }
      if (type < Frame.REQUEST || type > Frame.DATA) {
        throw new BadFrameException("unknown message type %d on stream %d"
            .formatted(type & 0xff, in.getUnsignedInt(start + 4)));
      }
      if (in.readableBytes() < Frame.HEADER_BYTES + length) {
        return;
      }
      in.skipBytes(Frame.HEADER_BYTES);
      byte[] payload = new byte[(int) length];
      in.readBytes(payload);
      out.accept(new Frame(in.getInt(start + 4), type, in.getByte(start + 9), payload));
    }
  }

  public static ByteBuf encode(ByteBufAllocator alloc, Frame frame) {
    ByteBuf buf = alloc.buffer(Frame.HEADER_BYTES + frame.payload().length);
    writeTo(buf, frame);
    return buf;
  }

  public static void writeTo(ByteBuf buf, Frame frame) {
    buf.writeInt(frame.payload().length)
        .writeInt(frame.streamId())
        .writeByte(frame.type())
        .writeByte(frame.flags())
        .writeBytes(frame.payload());
  }

  /** A reason when the stream ended inside a frame, for the connection's close log line. */
  public static String truncation(ByteBuf rest) {
    if (rest.readableBytes() < Frame.HEADER_BYTES) {
      return "connection ended inside a frame header (%d of %d bytes)".formatted(rest.readableBytes(), Frame.HEADER_BYTES);
    }
    return "connection ended inside a frame (%d of %d payload bytes)"
        .formatted(rest.readableBytes() - Frame.HEADER_BYTES, rest.getUnsignedInt(rest.readerIndex()));
  }
}
