package io.crigate.ttrpc.transport;

/** The byte stream cannot be ttrpc: the connection it came from must be closed. */
public final class BadFrameException extends RuntimeException {

  public BadFrameException(String reason) {
    super(reason);
  }
}
