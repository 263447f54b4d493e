package io.crigate.ttrpc;

import com.google.rpc.Status;

/** A call that ended with a status other than OK, on either side of the connection. */
public final class TtrpcException extends RuntimeException {

  private final transient Status status;

  public TtrpcException(Code code, String message) {
    this(Status.newBuilder().setCode(code.number()).setMessage(message).build());
  }

  public TtrpcException(Status status) {
    super(Code.forNumber(status.getCode()) + ": " + status.getMessage());
    this.status = status;
  }

  public Code code() {
    return Code.forNumber(status.getCode());
  }

  /** The status as sent or received, details included. */
  public Status status() {
    return status;
  }

  /** The status for any failure of a handler: its own status if it threw one, else UNKNOWN. */
  static Status statusOf(Throwable t) {
    if (t instanceof TtrpcException e) {
      return e.status;
    }
    return Status.newBuilder().setCode(Code.UNKNOWN.number()).setMessage(String.valueOf(t.getMessage())).build();
  }
}
