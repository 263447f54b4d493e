package io.crigate.ttrpc;

/**
 * The status codes ttrpc carries in {@code google.rpc.Status.code}: gRPC's codes, same names and
 * numbers, so {@code io.grpc.Status.Code.valueOf(code.name())} and {@link #forNumber} map both ways.
 */
public enum Code {
  OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS,
  PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED,
  INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED;

  private static final Code[] BY_NUMBER = values();

  public int number() {
    return ordinal();
  }

  /** A number no gRPC release defines is UNKNOWN, as in grpc-go. */
  public static Code forNumber(int number) {
    return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : UNKNOWN;
  }
}
