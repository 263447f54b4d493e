package io.crigate.transport.relay;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/** The gRPC status and deadline of a relayed call, as read from and written to HTTP/2 headers. */
final class GrpcHeaders {

  static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
  static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
  static final AsciiString GRPC_TIMEOUT = AsciiString.cached("grpc-timeout");
  static final int UNKNOWN = 2;
  static final int UNAVAILABLE = 14;
  static final int INTERNAL = 13;
  static final int CANCELLED = 1;
  static final int RESOURCE_EXHAUSTED = 8;
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  private static final AsciiString GRPC = AsciiString.cached("application/grpc");
  private static final AsciiString OK = AsciiString.cached("200");

  private GrpcHeaders() {}

  /** The status in trailers, {@link #UNKNOWN} when they carry none. */
  static int statusOf(Http2Headers trailers) {
    Integer status = trailers.getInt(GRPC_STATUS);
    return status == null ? UNKNOWN : status;
  }

  /**
   * Ends a call with {@code status}: a trailers-only response when no response headers were sent
   * yet, else trailers.
   */
  static Http2Headers ending(boolean headersSent, int status, String description) {
    Http2Headers headers = new DefaultHttp2Headers();
    if (!headersSent) {
      headers.status(OK).set(CONTENT_TYPE, GRPC);
    }
    headers.setInt(GRPC_STATUS, status).set(GRPC_MESSAGE, percentEncoded(description));
    return headers;
  }

  /**
   * The caller's deadline from {@code grpc-timeout} in nanoseconds, or {@link Long#MAX_VALUE}
   * without one (or an unreadable one, which the upstream then judges).
   */
  static long timeoutNanos(Http2Headers headers) {
    CharSequence value = headers.get(GRPC_TIMEOUT);
    if (value == null || value.length() < 2) {
      return Long.MAX_VALUE;
    }
    long amount;
    try {
      amount = Long.parseLong(value, 0, value.length() - 1, 10);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
    long unit = switch (value.charAt(value.length() - 1)) {
      case 'H' -> 3_600_000_000_000L;
      case 'M' -> 60_000_000_000L;
      case 'S' -> 1_000_000_000L;
      case 'm' -> 1_000_000L;
      case 'u' -> 1_000L;
      case 'n' -> 1L;
      default -> 0L;
    };
    return unit == 0 ? Long.MAX_VALUE : Math.multiplyHigh(amount, unit) != 0 ? Long.MAX_VALUE : amount * unit;
  }

  /** grpc-message is percent-encoded UTF-8 outside printable ASCII (and '%' itself). */
  static String percentEncoded(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      if (b >= 0x20 && b < 0x7f && b != '%') {
        out.append((char) b);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }
}
