package io.crigate.transport.relay;

import io.netty.buffer.ByteBuf;

/**
 * Follows the gRPC messages of one direction of a stream through its data frames, however they
 * are split, and reads each message's length prefix (1 flag byte, 4 bytes of length), so a message
 * over the limit is refused before any of it is passed on. The relay never holds a whole message.
 */
final class MessageSizeLimit {

  private static final int PREFIX_BYTES = 5;

  private final long limitBytes;
  /** Bytes of the current message still to come; 0 when the next byte starts a prefix. */
  private long bodyLeft;
  /** Bytes of the current prefix read so far. */
  private int prefixRead;
  private long length;

  MessageSizeLimit(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  long limitBytes() {
    return limitBytes;
  }

  /** Reads {@code data} (without consuming it); returns the length of a message it starts that is over the limit, or -1. */
  long oversized(ByteBuf data) {
    int at = data.readerIndex();
    int end = data.writerIndex();
    while (at < end) {
      if (bodyLeft > 0) {
        int skipped = (int) Math.min(bodyLeft, end - at);
        at += skipped;
        bodyLeft -= skipped;
        continue;
      }
      int b = data.getUnsignedByte(at++);
      if (prefixRead > 0) {
        length = (length << 8) | b; // byte 0 is the compression flag
      }
      if (++prefixRead == PREFIX_BYTES) {
        if (length > limitBytes) {
          return length;
        }
        bodyLeft = length;
        prefixRead = 0;
        length = 0;
      }
    }
    return -1;
  }
}
