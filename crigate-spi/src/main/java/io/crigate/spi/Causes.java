package io.crigate.spi;

import java.util.concurrent.CompletionException;

/** What a failure that reached crigate wrapped: the one place that peels wrappers off. */
public final class Causes {

  private Causes() {}

  /**
   * The failure an asynchronous stage completed with: a stage that fails inside a dependent stage
   * delivers it wrapped in a {@link CompletionException}, which says nothing of its own.
   */
  public static Throwable unwrapCompletion(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }

  /**
   * The innermost cause: for a client library's failure, the one that names the problem (connection
   * refused, unknown host), which the wrappers around it only repeat or generalize.
   */
  public static Throwable innermost(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }
}
