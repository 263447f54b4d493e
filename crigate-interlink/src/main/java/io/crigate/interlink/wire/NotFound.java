package io.crigate.interlink.wire;

/** A pod or container the plugin has no record of, where an answer needs one (logs); answered 404. */
public final class NotFound extends RuntimeException {

  public NotFound(String message) {
    super(message);
  }
}
