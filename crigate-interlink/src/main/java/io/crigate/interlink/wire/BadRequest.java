package io.crigate.interlink.wire;

/** A request that cannot be served as sent; answered 400 with the field and the reason. */
public final class BadRequest extends RuntimeException {

  private final String field;

  public BadRequest(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
