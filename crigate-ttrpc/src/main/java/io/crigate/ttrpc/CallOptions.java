package io.crigate.ttrpc;

import java.time.Duration;

/**
 * How one call is sent.
 *
 * @param timeout zero for none; otherwise sent as {@code timeout_nano} and enforced on both sides
 * @param metadata sent with the request
 */
public record CallOptions(Duration timeout, Metadata metadata) {

  public static final CallOptions DEFAULT = new CallOptions(Duration.ZERO, Metadata.EMPTY);

  public static CallOptions timeout(Duration timeout) {
    return new CallOptions(timeout, Metadata.EMPTY);
  }

  public CallOptions withMetadata(Metadata metadata) {
    return new CallOptions(timeout, metadata);
  }
}
