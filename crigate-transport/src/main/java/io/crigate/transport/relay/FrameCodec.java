package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 frames as the relay needs them (RFC 9113 §4, §6): a reader that cuts frames off a byte
 * stream, however the reads split them, and writers for the frames a relay sends. Only frame
 * layout lives here: padding and priority fields are taken off, a header block split over HEADERS
 * and CONTINUATION frames is handed on whole; what the frames mean is {@link FrameConnection}'s.
 */
final class FrameCodec {

  static final int HEADER_BYTES = 9;
  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int PRIORITY = 0x2;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PUSH_PROMISE = 0x5;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int WINDOW_UPDATE = 0x8;
  static final int CONTINUATION = 0x9;

  static final int FLAG_END_STREAM = 0x1;
  static final int FLAG_ACK = 0x1;
  static final int FLAG_END_HEADERS = 0x4;
  static final int FLAG_PADDED = 0x8;
  static final int FLAG_PRIORITY = 0x20;

  static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
  static final int SETTINGS_ENABLE_PUSH = 0x2;
  static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
  static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
  static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
  static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

  static final long NO_ERROR = 0x0;
  static final long PROTOCOL_ERROR = 0x1;
  static final long INTERNAL_ERROR = 0x2;
  static final long FLOW_CONTROL_ERROR = 0x3;
  static final long STREAM_CLOSED = 0x5;
  static final long FRAME_SIZE_ERROR = 0x6;
  static final long REFUSED_STREAM = 0x7;
  static final long CANCEL = 0x8;
  static final long COMPRESSION_ERROR = 0x9;
  static final long ENHANCE_YOUR_CALM = 0xb;

  /** The frame size every peer accepts without asking (and the only one the relay announces). */
  static final int DEFAULT_MAX_FRAME_BYTES = 16_384;
  static final int DEFAULT_WINDOW_BYTES = 65_535;
  static final int MAX_WINDOW_BYTES = Integer.MAX_VALUE;

  private static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private FrameCodec() {}

  static int prefaceLength() {
    return CLIENT_PREFACE.length;
  }

  /** Whether {@code in} holds the client preface at {@code at}. */
  static boolean isPreface(ByteBuf in, int at) {
    for (int i = 0; i < CLIENT_PREFACE.length; i++) {
      if (in.getByte(at + i) != CLIENT_PREFACE[i]) {
        return false;
      }
    }
    return true;
  }

  static void writePreface(ByteBuf out) {
    out.writeBytes(CLIENT_PREFACE);
  }

  /** A peer broke the protocol: the connection ends with GOAWAY carrying {@code code}. */
  static final class ConnectionError extends RuntimeException {
    final long code;

    ConnectionError(long code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  /** What the reader found; the buffers passed are only valid during the call. */
  interface Frames {

    /**
     * @param data the payload without padding
     * @param flowControlled the frame's whole length, padding included (what the windows count)
     */
    void data(int stream, ByteBuf data, int flowControlled, boolean endStream);

    /** A whole header block, CONTINUATION frames joined and padding and priority fields taken off. */
    void headers(int stream, ByteBuf block, boolean endStream);

    void rstStream(int stream, long code);

    /** @param payload the settings as 6-byte pairs (id, value); empty for an acknowledgement */
    void settings(boolean ack, ByteBuf payload);

    void ping(boolean ack, long data);

    void goAway(int lastStream, long code);

    void windowUpdate(int stream, int increment);
  }

  /**
   * Cuts frames off the front of a byte stream. Keeps only the state of a header block that
   * CONTINUATION frames have yet to finish; a partial frame stays in the caller's buffer.
   */
  static final class Reader {

    private final int maxFrameBytes;
    private final int maxHeaderBlockBytes;
    private ByteBuf block;
    private int blockStream;
    private boolean blockEndsStream;

    /**
     * @param maxFrameBytes the largest frame payload accepted (the SETTINGS_MAX_FRAME_SIZE announced)
     * @param maxHeaderBlockBytes the largest header block held while CONTINUATION frames arrive; a
     *     larger one ends the connection (its HPACK state could not be kept otherwise)
     */
    Reader(int maxFrameBytes, int maxHeaderBlockBytes) {
      this.maxFrameBytes = maxFrameBytes;
      this.maxHeaderBlockBytes = maxHeaderBlockBytes;
    }

    /** Reads every whole frame in {@code in}, leaving a partial one unread. */
    void read(ByteBuf in, ByteBufAllocator alloc, Frames frames) {
      while (in.readableBytes() >= HEADER_BYTES) {
        int at = in.readerIndex();
        int length = in.getUnsignedMedium(at);
        if (length > maxFrameBytes) {
          throw new ConnectionError(FRAME_SIZE_ERROR, "frame of " + length + " bytes over " + maxFrameBytes);
        }
        if (in.readableBytes() < HEADER_BYTES + length) {
          return;
        }
        int type = in.getUnsignedByte(at + 3);
        int flags = in.getUnsignedByte(at + 4);
        int stream = in.getInt(at + 5) & 0x7fff_ffff;
        in.skipBytes(HEADER_BYTES);
        ByteBuf payload = in.readSlice(length);
        if (block != null && type != CONTINUATION) {
          throw new ConnectionError(PROTOCOL_ERROR, "frame type " + type + " inside a header block");
        }
        frame(type, flags, stream, payload, alloc, frames);
      }
    }

    private void frame(int type, int flags, int stream, ByteBuf payload, ByteBufAllocator alloc, Frames frames) {
      switch (type) {
        case DATA -> {
          requireStream(stream, type);
          int flowControlled = payload.readableBytes();
          frames.data(stream, unpadded(flags, payload), flowControlled, (flags & FLAG_END_STREAM) != 0);
        }
        case HEADERS -> {
          requireStream(stream, type);
          ByteBuf fragment = unpadded(flags, payload);
          if ((flags & FLAG_PRIORITY) != 0) {
            requireBytes(fragment, 5, type);
            fragment.skipBytes(5);
          }
          boolean endStream = (flags & FLAG_END_STREAM) != 0;
          if ((flags & FLAG_END_HEADERS) != 0) {
            frames.headers(stream, fragment, endStream);
          } else {
            startBlock(stream, endStream, fragment, alloc);
          }
        }
        case CONTINUATION -> {
          if (block == null || stream != blockStream) {
            throw new ConnectionError(PROTOCOL_ERROR, "CONTINUATION without its HEADERS on stream " + stream);
          }
          if (block.readableBytes() + payload.readableBytes() > maxHeaderBlockBytes) {
            throw new ConnectionError(ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlockBytes + " bytes");
          }
          block.writeBytes(payload);
          if ((flags & FLAG_END_HEADERS) != 0) {
            ByteBuf whole = block;
            block = null;
            try {
              frames.headers(blockStream, whole, blockEndsStream);
            } finally {
              whole.release();
            }
          }
        }
        case RST_STREAM -> {
          requireStream(stream, type);
          requireLength(payload, 4, type);
          frames.rstStream(stream, payload.getUnsignedInt(payload.readerIndex()));
        }
        case SETTINGS -> {
          if (stream != 0 || payload.readableBytes() % 6 != 0 || ((flags & FLAG_ACK) != 0 && payload.isReadable())) {
            throw new ConnectionError(FRAME_SIZE_ERROR, "malformed SETTINGS");
          }
          frames.settings((flags & FLAG_ACK) != 0, payload);
        }
        case PING -> {
          if (stream != 0) {
            throw new ConnectionError(PROTOCOL_ERROR, "PING on stream " + stream);
          }
          requireLength(payload, 8, type);
          frames.ping((flags & FLAG_ACK) != 0, payload.getLong(payload.readerIndex()));
        }
        case GOAWAY -> {
          requireBytes(payload, 8, type);
          frames.goAway(payload.getInt(payload.readerIndex()) & 0x7fff_ffff,
              payload.getUnsignedInt(payload.readerIndex() + 4));
        }
        case WINDOW_UPDATE -> {
          requireLength(payload, 4, type);
          frames.windowUpdate(stream, payload.getInt(payload.readerIndex()) & 0x7fff_ffff);
        }
        case PUSH_PROMISE -> throw new ConnectionError(PROTOCOL_ERROR, "PUSH_PROMISE, though push is disabled");
        default -> {
          // PRIORITY and unknown types carry nothing the relay uses (RFC 9113 §5.5: ignore them)
        }
      }
    }

    private void startBlock(int stream, boolean endStream, ByteBuf fragment, ByteBufAllocator alloc) {
      if (fragment.readableBytes() > maxHeaderBlockBytes) {
        throw new ConnectionError(ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlockBytes + " bytes");
      }
      block = alloc.buffer(Math.max(256, 2 * fragment.readableBytes()));
      block.writeBytes(fragment);
      blockStream = stream;
      blockEndsStream = endStream;
    }

    /** Drops a header block in progress (the connection is closing). */
    void release() {
      if (block != null) {
        block.release();
        block = null;
      }
    }

    private static ByteBuf unpadded(int flags, ByteBuf payload) {
      if ((flags & FLAG_PADDED) == 0) {
        return payload;
      }
      requireBytes(payload, 1, -1);
      int padding = payload.readUnsignedByte();
      if (padding > payload.readableBytes()) {
        throw new ConnectionError(PROTOCOL_ERROR, "padding of " + padding + " bytes longer than the frame");
      }
      return payload.slice(payload.readerIndex(), payload.readableBytes() - padding);
    }

    private static void requireStream(int stream, int type) {
      if (stream == 0) {
        throw new ConnectionError(PROTOCOL_ERROR, "frame type " + type + " on stream 0");
      }
    }

    private static void requireLength(ByteBuf payload, int length, int type) {
      if (payload.readableBytes() != length) {
        throw new ConnectionError(FRAME_SIZE_ERROR, "frame type " + type + " of " + payload.readableBytes() + " bytes");
      }
    }

    private static void requireBytes(ByteBuf payload, int length, int type) {
      if (payload.readableBytes() < length) {
        throw new ConnectionError(FRAME_SIZE_ERROR, "frame type " + type + " of " + payload.readableBytes() + " bytes");
      }
    }
  }

  // ---- writing

  static void writeHeader(ByteBuf out, int length, int type, int flags, int stream) {
    out.writeMedium(length);
    out.writeByte(type);
    out.writeByte(flags);
    out.writeInt(stream);
  }

  /** @param pairs setting ids and values, alternating */
  static void writeSettings(ByteBuf out, long... pairs) {
    writeHeader(out, pairs.length / 2 * 6, SETTINGS, 0, 0);
    for (int i = 0; i < pairs.length; i += 2) {
      out.writeShort((int) pairs[i]);
      out.writeInt((int) pairs[i + 1]);
    }
  }

  static void writeSettingsAck(ByteBuf out) {
    writeHeader(out, 0, SETTINGS, FLAG_ACK, 0);
  }

  static void writePing(ByteBuf out, boolean ack, long data) {
    writeHeader(out, 8, PING, ack ? FLAG_ACK : 0, 0);
    out.writeLong(data);
  }

  static void writeWindowUpdate(ByteBuf out, int stream, int increment) {
    writeHeader(out, 4, WINDOW_UPDATE, 0, stream);
    out.writeInt(increment);
  }

  static void writeRstStream(ByteBuf out, int stream, long code) {
    writeHeader(out, 4, RST_STREAM, 0, stream);
    out.writeInt((int) code);
  }

  static void writeGoAway(ByteBuf out, int lastStream, long code) {
    writeHeader(out, 8, GOAWAY, 0, 0);
    out.writeInt(lastStream);
    out.writeInt((int) code);
  }

  /** The DATA frame header for {@code length} bytes of payload, which the caller writes after it. */
  static void writeDataHeader(ByteBuf out, int stream, int length, boolean endStream) {
    writeHeader(out, length, DATA, endStream ? FLAG_END_STREAM : 0, stream);
  }

  /**
   * A header block as HEADERS and, past {@code maxFrameBytes}, CONTINUATION frames. {@code out}
   * already holds the block from {@code blockStart} on (encoded in place after a gap of
   * {@link #HEADER_BYTES} for the first frame's header, which this fills in).
   */
  static void frameHeaderBlock(ByteBuf out, int headerAt, int stream, boolean endStream, int maxFrameBytes) {
    int blockStart = headerAt + HEADER_BYTES;
    int blockBytes = out.writerIndex() - blockStart;
    int endStreamFlag = endStream ? FLAG_END_STREAM : 0;
    if (blockBytes <= maxFrameBytes) {
      out.setMedium(headerAt, blockBytes);
      out.setByte(headerAt + 3, HEADERS);
      out.setByte(headerAt + 4, endStreamFlag | FLAG_END_HEADERS);
      out.setInt(headerAt + 5, stream);
      return;
    }
    // rare (a block over 16 KiB): move the tail out and cut it into CONTINUATION frames
    ByteBuf tail = out.copy(blockStart + maxFrameBytes, blockBytes - maxFrameBytes);
    try {
      out.writerIndex(blockStart + maxFrameBytes);
      out.setMedium(headerAt, maxFrameBytes);
      out.setByte(headerAt + 3, HEADERS);
      out.setByte(headerAt + 4, endStreamFlag);
      out.setInt(headerAt + 5, stream);
      while (tail.isReadable()) {
        int piece = Math.min(maxFrameBytes, tail.readableBytes());
        writeHeader(out, piece, CONTINUATION, piece == tail.readableBytes() ? FLAG_END_HEADERS : 0, stream);
        out.writeBytes(tail, piece);
      }
    } finally {
      tail.release();
    }
  }
}
