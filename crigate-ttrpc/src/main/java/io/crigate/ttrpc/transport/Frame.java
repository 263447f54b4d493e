package io.crigate.ttrpc.transport;

import io.crigate.ttrpc.Code;
import io.crigate.ttrpc.TtrpcException;

/**
 * One ttrpc message on the wire: a 10-byte header (length, stream id, type, flags) and its payload.
 *
 * @param streamId odd for streams a client opens
 * @param type {@link #REQUEST}, {@link #RESPONSE} or {@link #DATA}
 * @param flags per type, see the {@code FLAG_*} constants
 * @param payload at most {@link #MAX_PAYLOAD} bytes
 */
public record Frame(int streamId, byte type, byte flags, byte[] payload) {

  public static final int HEADER_BYTES = 10;
  /** ttrpc's hard message limit; a peer sending more is broken, not merely verbose. */
  public static final int MAX_PAYLOAD = 4 << 20;

  public static final byte REQUEST = 1;
  public static final byte RESPONSE = 2;
  public static final byte DATA = 3;

  /** Request or data: the sender sends nothing more on this stream. */
  public static final byte FLAG_REMOTE_CLOSED = 0x01;
  /** Request: the sender will stream more data frames (client streaming). */
  public static final byte FLAG_REMOTE_OPEN = 0x02;
  /** Data: the frame carries no message, only its flags. */
  public static final byte FLAG_NO_DATA = 0x04;

  public Frame {
    if (payload.length > MAX_PAYLOAD) {
      throw new TtrpcException(Code.RESOURCE_EXHAUSTED,
          "message of %d bytes exceeds the ttrpc limit of %d bytes".formatted(payload.length, MAX_PAYLOAD));
    }
  }

  public boolean has(byte flag) {
    return (flags & flag) == flag;
  }
}
