package io.crigate.cli;

/** Words why a long-running command could not start, on the one line the operator reads. */
final class StartFailure {

  private StartFailure() {}

  /**
   * The message and each cause that adds to it: I/O failures carry the path in the cause, and
   * client libraries the refused address or unknown host. Left out: a wrapper whose message is
   * only its cause's text (CompletionException, ExecutionException), and a cause the line already
   * holds.
   */
  static String describe(Throwable failure) {
    StringBuilder line = new StringBuilder(String.valueOf(failure.getMessage()));
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
      boolean wrapper = cause.getCause() != null && cause.getCause().toString().equals(cause.getMessage());
      String said = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
      if (!wrapper && line.indexOf(said) < 0) {
        line.append(": ").append(cause.getMessage() == null ? said : cause.toString());
      }
    }
    return line.toString();
  }
}
